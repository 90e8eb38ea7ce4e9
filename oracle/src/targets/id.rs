//! Target IDs: parsing the strings (V3 and V4 syntax), reading and
//! writing `e_flags`, and the errors of both.

use super::*;

/// The optional triple prefix of a full target ID.
pub const TRIPLE_PREFIX: &str = "amdgcn-amd-amdhsa--";

/// A processor plus its feature settings: what a target ID string names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TargetId {
    /// The processor.
    #[serde(serialize_with = "ser_target_name")]
    pub target: &'static Target,
    /// `xnack` setting ([`FeatureSetting::Unsupported`] if the processor
    /// lacks it).
    pub xnack: FeatureSetting,
    /// `sramecc` setting ([`FeatureSetting::Unsupported`] if the processor
    /// lacks it).
    pub sramecc: FeatureSetting,
}

pub(super) fn ser_target_name<S: serde::Serializer>(
    t: &&'static Target,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name)
}

/// Why a string is not a valid target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetIdError {
    /// The string (after any triple prefix) is empty.
    Empty,
    /// The string is not shaped like a target ID.
    BadSyntax {
        /// The offending input.
        input: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// No processor has this name.
    UnknownProcessor {
        /// The name given.
        name: String,
        /// Known processors with a similar name (at most three), or the
        /// canonical name if `name` is a legacy alias.
        suggestions: Vec<&'static str>,
    },
    /// The processor is valid but newer than the oracle's tables (see
    /// [`UNMODELLED`]): its features cannot be checked.
    UnmodelledProcessor {
        /// Its name.
        name: &'static str,
    },
    /// The processor is r600-era and has no HSA target ID.
    NotHsa {
        /// Its name.
        name: &'static str,
    },
    /// A feature other than `xnack` and `sramecc`.
    UnknownFeature {
        /// The feature as written.
        feature: String,
    },
    /// A feature appears twice.
    DuplicateFeature {
        /// The feature.
        feature: Feature,
    },
    /// The processor does not have the feature.
    UnsupportedFeature {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
    /// [`TargetId::new`] was given `Unsupported` for a feature the
    /// processor has.
    MissingSetting {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
}

impl fmt::Display for TargetIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty target ID"),
            Self::BadSyntax { input, reason } => {
                write!(f, "malformed target ID `{input}`: {reason}")
            }
            Self::UnknownProcessor { name, suggestions } => {
                write!(f, "unknown processor `{name}`")?;
                if !suggestions.is_empty() {
                    write!(f, "; did you mean {}?", suggestions.join(", "))?;
                }
                Ok(())
            }
            Self::UnmodelledProcessor { name } => write!(
                f,
                "processor `{name}` is newer than this checker's target table, which cannot check its features"
            ),
            Self::NotHsa { name } => {
                write!(f, "processor `{name}` is r600-era and has no HSA target ID")
            }
            Self::UnknownFeature { feature } => {
                write!(
                    f,
                    "unknown target feature `{feature}` (target IDs only name xnack and sramecc)"
                )
            }
            Self::DuplicateFeature { feature } => {
                write!(f, "feature `{feature}` is given more than once")
            }
            Self::UnsupportedFeature { processor, feature } => {
                write!(f, "processor `{processor}` does not support `{feature}`")
            }
            Self::MissingSetting { processor, feature } => {
                write!(f, "processor `{processor}` supports `{feature}`, so its setting must be any, off or on")
            }
        }
    }
}

impl std::error::Error for TargetIdError {}

/// Why `e_flags` do not decode to a target ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EFlagsError {
    /// `EF_AMDGPU_MACH` is 0 (`EF_AMDGPU_MACH_NONE`).
    NoMach,
    /// The mach value is reserved or unknown.
    UnknownMach {
        /// The mach byte.
        mach: u8,
    },
    /// The mach value names a processor newer than this table (see
    /// [`UNMODELLED`]).
    UnmodelledMach {
        /// The mach byte.
        mach: u8,
        /// The processor it names.
        name: &'static str,
    },
    /// The mach value names an r600-era processor.
    NotHsa {
        /// The mach byte.
        mach: u8,
        /// The processor it names.
        name: &'static str,
    },
    /// The flags enable or set a feature the processor does not have.
    FeatureNotSupported {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
    /// A V4+ feature field says "unsupported" (0) for a processor that has
    /// the feature.
    FeatureMissing {
        /// The processor.
        processor: &'static str,
        /// The feature.
        feature: Feature,
    },
}

impl fmt::Display for EFlagsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMach => f.write_str("EF_AMDGPU_MACH is 0 (EF_AMDGPU_MACH_NONE) and names no processor"),
            Self::UnknownMach { mach } => write!(f, "EF_AMDGPU_MACH {mach:#04x} is reserved or unknown"),
            Self::UnmodelledMach { mach, name } => write!(
                f,
                "EF_AMDGPU_MACH {mach:#04x} names {name}, a processor newer than the oracle's target table"
            ),
            Self::NotHsa { mach, name } => {
                write!(f, "EF_AMDGPU_MACH {mach:#04x} names {name}, an r600-era processor with no HSA ABI")
            }
            Self::FeatureNotSupported { processor, feature } => {
                write!(f, "e_flags set {feature} but {processor} does not support {feature}")
            }
            Self::FeatureMissing { processor, feature } => write!(
                f,
                "e_flags say {feature} is unsupported but {processor} supports it (expected any, off or on)"
            ),
        }
    }
}

impl std::error::Error for EFlagsError {}

impl TargetId {
    /// A target ID for `target` with explicit settings; fails if a setting
    /// is `Unsupported` for a feature the processor has, or anything else
    /// for a feature it lacks.
    pub fn new(
        target: &'static Target,
        xnack: FeatureSetting,
        sramecc: FeatureSetting,
    ) -> Result<TargetId, TargetIdError> {
        if !target.hsa {
            return Err(TargetIdError::NotHsa { name: target.name });
        }
        for (feature, setting) in [(Feature::Xnack, xnack), (Feature::Sramecc, sramecc)] {
            let supported = target.supports(feature);
            if supported && setting == FeatureSetting::Unsupported {
                return Err(TargetIdError::MissingSetting {
                    processor: target.name,
                    feature,
                });
            }
            if !supported && setting != FeatureSetting::Unsupported {
                return Err(TargetIdError::UnsupportedFeature {
                    processor: target.name,
                    feature,
                });
            }
        }
        Ok(TargetId {
            target,
            xnack,
            sramecc,
        })
    }

    /// The target ID with every supported feature "any" (what a bare V4+
    /// processor name means).
    pub fn any(target: &'static Target) -> TargetId {
        let s = |yes: bool| {
            if yes {
                FeatureSetting::Any
            } else {
                FeatureSetting::Unsupported
            }
        };
        TargetId {
            target,
            xnack: s(target.xnack),
            sramecc: s(target.sramecc),
        }
    }

    /// The setting of `feature`.
    pub fn setting(&self, feature: Feature) -> FeatureSetting {
        match feature {
            Feature::Sramecc => self.sramecc,
            Feature::Xnack => self.xnack,
        }
    }

    fn set(&mut self, feature: Feature, v: FeatureSetting) {
        match feature {
            Feature::Sramecc => self.sramecc = v,
            Feature::Xnack => self.xnack = v,
        }
    }

    /// Parses a target ID in V4+ syntax (`gfx90a:sramecc+:xnack-`, features
    /// in any order) or V3 syntax (`gfx906+xnack+sram-ecc`; `+sramecc` is
    /// accepted too), optionally after `amdgcn-amd-amdhsa--`. A bare
    /// processor name is read with its V4+ meaning (every supported feature
    /// "any"); use [`TargetId::parse_v3`] to read it as V3 (features off).
    pub fn parse(s: &str) -> Result<TargetId, TargetIdError> {
        let body = strip_triple(s)?;
        match body.find([':', '+']).and_then(|i| body.get(i..i + 1)) {
            Some("+") => parse_v3_body(body),
            _ => parse_v4_body(body),
        }
    }

    /// Parses a V3 target ID (`gfx906+xnack+sram-ecc`): listed features
    /// are on, supported features not listed are off.
    pub fn parse_v3(s: &str) -> Result<TargetId, TargetIdError> {
        let body = strip_triple(s)?;
        if body.contains(':') {
            return Err(bad(body, "V3 target IDs use `+feature`, not `:feature±`"));
        }
        parse_v3_body(body)
    }

    /// The V4+ spelling: processor, then `:feature+`/`:feature-` for each
    /// feature that is on or off, sorted by name.
    pub fn to_v4_string(&self) -> String {
        let mut s = String::from(self.target.name);
        for feature in Feature::ALL {
            match self.setting(feature) {
                FeatureSetting::On => {
                    s.push(':');
                    s.push_str(feature.name());
                    s.push('+');
                }
                FeatureSetting::Off => {
                    s.push(':');
                    s.push_str(feature.name());
                    s.push('-');
                }
                FeatureSetting::Any | FeatureSetting::Unsupported => {}
            }
        }
        s
    }

    /// The V4+ spelling after the `amdgcn-amd-amdhsa--` triple, as the
    /// `amdhsa.target` metadata key holds it.
    pub fn to_full_string(&self) -> String {
        format!("{TRIPLE_PREFIX}{}", self.to_v4_string())
    }

    /// The V3 spelling LLVM 14 wrote: `+xnack` then `+sram-ecc` for each
    /// feature that is on or any (V3 cannot say "any"; LLVM wrote it as on).
    pub fn to_v3_string(&self) -> String {
        let mut s = String::from(self.target.name);
        for feature in [Feature::Xnack, Feature::Sramecc] {
            if self.setting(feature).is_on_or_any() {
                s.push('+');
                s.push_str(feature.v3_name());
            }
        }
        s
    }

    /// Decodes the processor and feature settings from `e_flags` as code
    /// object `cov` lays them out. V2 and V3: one bit each (`0x100` xnack,
    /// `0x200` sramecc), set means on, clear means off. V4+: two-bit fields
    /// (mask `0x300` xnack, `0xc00` sramecc). Bits the version does not
    /// define, including the V6 generic version, are ignored here (see
    /// [`CodeObjectVersion::defined_e_flags`] and [`generic_version`]).
    pub fn from_e_flags(e_flags: u32, cov: CodeObjectVersion) -> Result<TargetId, EFlagsError> {
        let mach = (e_flags & crate::elf::raw::EF_AMDGPU_MACH) as u8;
        let target = match by_mach(mach) {
            Some(t) if t.hsa => t,
            Some(t) => return Err(EFlagsError::NotHsa { mach, name: t.name }),
            None if mach == 0 => return Err(EFlagsError::NoMach),
            None => {
                if let Some(name) = unmodelled_mach(mach) {
                    return Err(EFlagsError::UnmodelledMach { mach, name });
                }
                return Err(EFlagsError::UnknownMach { mach });
            }
        };
        let mut id = TargetId::any(target);
        for feature in Feature::ALL {
            let supported = target.supports(feature);
            let setting = if cov.has_feature_fields() {
                let shift = match feature {
                    Feature::Xnack => 8,
                    Feature::Sramecc => 10,
                };
                let s = FeatureSetting::from_field(e_flags >> shift);
                if supported && s == FeatureSetting::Unsupported {
                    return Err(EFlagsError::FeatureMissing {
                        processor: target.name,
                        feature,
                    });
                }
                s
            } else {
                let bit = match feature {
                    Feature::Xnack => 0x100,
                    Feature::Sramecc => 0x200,
                };
                match (e_flags & bit != 0, supported) {
                    (true, _) => FeatureSetting::On,
                    (false, true) => FeatureSetting::Off,
                    (false, false) => FeatureSetting::Unsupported,
                }
            };
            if !supported && setting != FeatureSetting::Unsupported {
                return Err(EFlagsError::FeatureNotSupported {
                    processor: target.name,
                    feature,
                });
            }
            id.set(feature, setting);
        }
        Ok(id)
    }

    /// Encodes the mach byte and feature bits for code object `cov` (the
    /// inverse of [`TargetId::from_e_flags`]; V2/V3 record "any" as on).
    /// The V6 generic version byte is left 0 for the caller to fill in.
    pub fn to_e_flags(&self, cov: CodeObjectVersion) -> u32 {
        let mut flags = u32::from(self.target.mach);
        if cov.has_feature_fields() {
            flags |= self.xnack.field() << 8;
            flags |= self.sramecc.field() << 10;
        } else {
            if self.xnack.is_on_or_any() {
                flags |= 0x100;
            }
            if self.sramecc.is_on_or_any() {
                flags |= 0x200;
            }
        }
        flags
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_v4_string())
    }
}

impl std::str::FromStr for TargetId {
    type Err = TargetIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TargetId::parse(s)
    }
}

pub(super) fn bad(input: &str, reason: &'static str) -> TargetIdError {
    TargetIdError::BadSyntax {
        input: input.to_owned(),
        reason,
    }
}

/// Removes the optional triple prefix; rejects other triples and empty
/// bodies.
pub(super) fn strip_triple(s: &str) -> Result<&str, TargetIdError> {
    let body = s.strip_prefix(TRIPLE_PREFIX).unwrap_or(s);
    if body.is_empty() {
        return Err(TargetIdError::Empty);
    }
    if body.starts_with("amdgcn-") || body.starts_with("r600-") {
        return Err(bad(
            s,
            "the only triple a target ID may carry is `amdgcn-amd-amdhsa--`",
        ));
    }
    Ok(body)
}

/// Resolves the processor part of a target ID.
pub(super) fn processor(name: &str) -> Result<&'static Target, TargetIdError> {
    if name.is_empty() {
        return Err(bad(name, "missing processor name before the features"));
    }
    if let Some(t) = by_name(name) {
        return if t.hsa {
            Ok(t)
        } else {
            Err(TargetIdError::NotHsa { name: t.name })
        };
    }
    if let Some(name) = unmodelled_name(name) {
        return Err(TargetIdError::UnmodelledProcessor { name });
    }
    let suggestions = match by_name_or_alias(name) {
        Some(canonical) => vec![canonical.name],
        None => closest_names(name),
    };
    Err(TargetIdError::UnknownProcessor {
        name: name.to_owned(),
        suggestions,
    })
}

/// Up to three HSA processor names within edit distance 2 of `name`,
/// nearest first (table order breaks ties).
pub(super) fn closest_names(name: &str) -> Vec<&'static str> {
    // Names longer than any processor's cannot be within distance 2 of one;
    // skipping them also bounds the work on hostile input.
    if name.len() > 24 {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &'static str)> = hsa_targets()
        .map(|t| (edit_distance(name.as_bytes(), t.name.as_bytes()), t.name))
        .filter(|(d, _)| *d <= 2)
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

/// Levenshtein distance over bytes, in O(len(b)) memory.
pub(super) fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

pub(super) fn feature_by_name(name: &str) -> Result<Feature, TargetIdError> {
    Feature::ALL
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| TargetIdError::UnknownFeature {
            feature: name.to_owned(),
        })
}

pub(super) fn parse_v4_body(body: &str) -> Result<TargetId, TargetIdError> {
    let mut parts = body.split(':');
    let target = processor(parts.next().unwrap_or(""))?;
    let mut id = TargetId::any(target);
    let mut seen: Vec<Feature> = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err(bad(body, "empty feature between `:` separators"));
        }
        let (name, setting) = if let Some(n) = part.strip_suffix('+') {
            (n, FeatureSetting::On)
        } else if let Some(n) = part.strip_suffix('-') {
            (n, FeatureSetting::Off)
        } else {
            return Err(bad(
                body,
                "each `:feature` must end in `+` (on) or `-` (off)",
            ));
        };
        if name.is_empty() || name.ends_with(['+', '-']) {
            return Err(bad(body, "a feature is a name followed by one `+` or `-`"));
        }
        let feature = feature_by_name(name)?;
        if seen.contains(&feature) {
            return Err(TargetIdError::DuplicateFeature { feature });
        }
        seen.push(feature);
        if !target.supports(feature) {
            return Err(TargetIdError::UnsupportedFeature {
                processor: target.name,
                feature,
            });
        }
        id.set(feature, setting);
    }
    Ok(id)
}

pub(super) fn parse_v3_body(body: &str) -> Result<TargetId, TargetIdError> {
    let mut parts = body.split('+');
    let target = processor(parts.next().unwrap_or(""))?;
    let off = |yes: bool| {
        if yes {
            FeatureSetting::Off
        } else {
            FeatureSetting::Unsupported
        }
    };
    let mut id = TargetId {
        target,
        xnack: off(target.xnack),
        sramecc: off(target.sramecc),
    };
    let mut seen: Vec<Feature> = Vec::new();
    for part in parts {
        if part.is_empty() {
            return Err(bad(body, "empty feature after `+`"));
        }
        if part.contains(':') {
            return Err(bad(body, "mixes V3 `+feature` and V4 `:feature±` syntax"));
        }
        let feature = match part {
            "xnack" => Feature::Xnack,
            "sram-ecc" | "sramecc" => Feature::Sramecc,
            other => {
                return Err(TargetIdError::UnknownFeature {
                    feature: other.to_owned(),
                })
            }
        };
        if seen.contains(&feature) {
            return Err(TargetIdError::DuplicateFeature { feature });
        }
        seen.push(feature);
        if !target.supports(feature) {
            return Err(TargetIdError::UnsupportedFeature {
                processor: target.name,
                feature,
            });
        }
        id.set(feature, FeatureSetting::On);
    }
    Ok(id)
}
