//! The generator's configuration: one table that declares every knob once.
//!
//! Following wasm-smith's `Config`, each knob is declared in
//! [`define_config!`] with its doc comment, its default, and how a *swarm*
//! configuration draws it. [`Config::default`] allows everything the
//! generators know; the [`arbitrary::Arbitrary`] impl draws swarm
//! configurations (features switched off at random, maxima drawn), so that
//! a fuzzer or a seed sweep also explores narrow corners; [`Config::sanitize`]
//! only narrows (it clamps maxima to what the generators support and drops
//! entries that cannot be used, never switching anything on).
//!
//! A configuration is read from JSON or TOML ([`Config::from_json`],
//! [`Config::from_toml`], [`Config::from_file`]), where absent keys keep
//! their defaults and unknown keys are errors, or set knob by knob from
//! `name=value` text ([`Config::set`]), the form the CLI passes.

use arbitrary::{Arbitrary, Unstructured};
use hsaco_oracle::targets::{self, Target};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// Most kernels one generated code object may hold.
pub const MAX_KERNELS: usize = 64;
/// Most explicit arguments one generated kernel may have.
pub const MAX_EXPLICIT_ARGS: usize = 64;
/// Largest `by_value` argument the generators write, in bytes.
pub const MAX_BY_VALUE_SIZE: u32 = 4096;
/// Longest kernel name the generators write (long enough for MessagePack's
/// str16 form, which starts at 256 bytes).
pub const MAX_NAME_LEN: usize = 300;

/// Code object versions the generators build.
pub const SUPPORTED_COVS: [u8; 5] = [2, 3, 4, 5, 6];

/// Declares [`Config`]: for each knob its doc, type, default and the
/// expression that draws it in a swarm configuration (`$u` is the
/// `Unstructured`). Also generates [`Config::KNOBS`].
macro_rules! define_config {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $ty:ty = $default:expr, swarm = |$u:ident| $arb:expr;
    )*) => {
        /// Every knob of the generators. See the module documentation.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Config {
            $(
                $(#[doc = $doc])*
                pub $name: $ty,
            )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $name: $default, )* }
            }
        }

        impl<'a> Arbitrary<'a> for Config {
            fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
                let mut c = Config {
                    $( $name: { let $u = &mut *u; $arb }, )*
                };
                c.sanitize();
                c.ensure_generable();
                Ok(c)
            }
        }

        impl Config {
            /// Every knob's name with the first line of its documentation,
            /// in declaration order (for `--help` text and error messages).
            pub const KNOBS: &'static [(&'static str, &'static str)] = &[
                $( (stringify!($name), first_doc_line(&[$($doc),*])), )*
            ];

            /// Every knob's name with its whole documentation, one entry
            /// per line (for `gen --list-knobs`).
            pub const KNOB_DOCS: &'static [(&'static str, &'static [&'static str])] = &[
                $( (stringify!($name), &[$($doc),*]), )*
            ];
        }
    };
}

/// The first documentation line of a knob (its summary).
const fn first_doc_line(lines: &[&'static str]) -> &'static str {
    match lines.first() {
        Some(l) => l,
        None => "",
    }
}

/// True with probability 3/4: swarm knobs stay on more often than off, so
/// that most swarm configurations still combine many features.
fn mostly(u: &mut Unstructured<'_>) -> arbitrary::Result<bool> {
    Ok(u.int_in_range(0u8..=3)? != 0)
}

/// A non-empty random subset of `all` (each kept with probability 1/2; the
/// first element drawn is kept if nothing else was).
fn subset<T: Clone>(u: &mut Unstructured<'_>, all: &[T]) -> arbitrary::Result<Vec<T>> {
    let mut out = Vec::new();
    for x in all {
        if u.arbitrary::<bool>()? {
            out.push(x.clone());
        }
    }
    if out.is_empty() && !all.is_empty() {
        let i = u.choose_index(all.len())?;
        out.push(all[i].clone());
    }
    Ok(out)
}

fn all_target_names() -> Vec<String> {
    targets::hsa_targets().map(|t| t.name.to_owned()).collect()
}

define_config! {
    /// Processors to generate for, by LLVM name (`gfx90a`, `gfx9-generic`).
    /// Default: every HSA processor the oracle models.
    targets: Vec<String> = all_target_names(), swarm = |u| subset(u, &all_target_names())?;
    /// Code object versions to generate (2 to 6).
    code_object_versions: Vec<u8> = SUPPORTED_COVS.to_vec(), swarm = |u| subset(u, &SUPPORTED_COVS)?;
    /// Only generate what an installed assembler can rebuild from the
    /// assembler text: llvm-mc-19 for V4-V6 (processors LLVM 19 knows, no
    /// directive LLVM 19 lacks) and llvm-mc-14 for V3 and V2.
    rebuildable_only: bool = false, swarm = |u| u.ratio(1u8, 4)?;
    /// Fewest kernels per code object.
    min_kernels: usize = 1, swarm = |u| u.int_in_range(1..=2)?;
    /// Most kernels per code object.
    max_kernels: usize = 4, swarm = |u| u.int_in_range(1..=8)?;
    /// Most explicit (non-hidden) arguments per kernel.
    max_explicit_args: usize = 12, swarm = |u| u.int_in_range(0..=16)?;
    /// Explicit `by_value` arguments.
    by_value_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `global_buffer` arguments (global, constant or generic pointers).
    global_buffer_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `dynamic_shared_pointer` arguments (LDS pointers).
    dynamic_shared_pointer_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `sampler` arguments.
    sampler_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `image` arguments.
    image_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `pipe` arguments.
    pipe_args: bool = true, swarm = |u| mostly(u)?;
    /// Explicit `queue` arguments.
    queue_args: bool = true, swarm = |u| mostly(u)?;
    /// Hidden arguments: the pre-V5 8-byte slots, or the V5 256-byte block.
    hidden_args: bool = true, swarm = |u| mostly(u)?;
    /// Largest `by_value` argument in bytes.
    max_by_value_size: u32 = 64, swarm = |u| u.int_in_range(1..=256)?;
    /// Optional kernel and argument metadata keys (language, names, type
    /// names, work-group size hints, spill counts, ...).
    optional_metadata: bool = true, swarm = |u| mostly(u)?;
    /// `amdhsa.printf` format descriptions.
    printf: bool = true, swarm = |u| mostly(u)?;
    /// Longest kernel name in bytes.
    max_name_len: usize = 40, swarm = |u| u.int_in_range(1..=MAX_NAME_LEN)?;
    /// The private segment buffer user SGPRs (4).
    user_sgpr_private_segment_buffer: bool = true, swarm = |u| mostly(u)?;
    /// The dispatch packet pointer user SGPRs (2).
    user_sgpr_dispatch_ptr: bool = true, swarm = |u| mostly(u)?;
    /// The queue pointer user SGPRs (2).
    user_sgpr_queue_ptr: bool = true, swarm = |u| mostly(u)?;
    /// The kernarg segment pointer user SGPRs (2).
    user_sgpr_kernarg_segment_ptr: bool = true, swarm = |u| mostly(u)?;
    /// The dispatch id user SGPRs (2).
    user_sgpr_dispatch_id: bool = true, swarm = |u| mostly(u)?;
    /// The flat scratch init user SGPRs (2).
    user_sgpr_flat_scratch_init: bool = true, swarm = |u| mostly(u)?;
    /// The private segment size user SGPR (1).
    user_sgpr_private_segment_size: bool = true, swarm = |u| mostly(u)?;
    /// Kernel arguments preloaded into user SGPRs (gfx90a, gfx94x, gfx950).
    kernarg_preload: bool = true, swarm = |u| mostly(u)?;
    /// The work-group ID system SGPRs (X, Y, Z each drawn).
    workgroup_ids: bool = true, swarm = |u| mostly(u)?;
    /// The work-group info system SGPR.
    workgroup_info: bool = true, swarm = |u| mostly(u)?;
    /// ENABLE_PRIVATE_SEGMENT (scratch, and the wave offset SGPR where the
    /// target has no architected flat scratch).
    private_segment: bool = true, swarm = |u| mostly(u)?;
    /// Highest ENABLE_VGPR_WORKITEM_ID (0: X only, 1: X and Y, 2: X, Y, Z).
    max_workitem_id: u8 = 2, swarm = |u| u.int_in_range(0..=2)?;
    /// Wave32 kernels (GFX10 and later).
    wave32: bool = true, swarm = |u| mostly(u)?;
    /// Wave64 kernels (on GFX10 and later; earlier targets always run wave64).
    wave64: bool = true, swarm = |u| mostly(u)?;
    /// USES_DYNAMIC_STACK (code object V5 and later).
    dynamic_stack: bool = true, swarm = |u| mostly(u)?;
    /// Non-default float round and denorm modes.
    float_modes: bool = true, swarm = |u| mostly(u)?;
    /// Mode bits: DX10 clamp, IEEE mode, FP16 overflow, WGP mode, memory
    /// ordering, forward progress, round-robin scheduling, TG split.
    mode_bits: bool = true, swarm = |u| mostly(u)?;
    /// Floating point and integer exception enables of compute_pgm_rsrc2.
    exceptions: bool = true, swarm = |u| mostly(u)?;
    /// compute_pgm_rsrc3 fields with assembler directives (shared VGPR
    /// count, instruction prefetch size).
    rsrc3_fields: bool = true, swarm = |u| mostly(u)?;
    /// Descriptor bits the ABI defines but no LLVM directive sets (TRAP_ON_START,
    /// TRAP_ON_END, GLG_EN, IMAGE_OP, DISABLE_PERF, WGP_TAKEOVER); the
    /// assembler text cannot reproduce such a case.
    fields_without_directives: bool = true, swarm = |u| u.ratio(1u8, 3)?;
    /// Accumulation VGPRs (AGPRs) on targets that have them.
    agprs: bool = true, swarm = |u| mostly(u)?;
    /// Largest `.amdhsa_next_free_vgpr` (clamped to each target's limit).
    max_next_free_vgpr: u16 = 512, swarm = |u| u.int_in_range(1..=512)?;
    /// Largest `.amdhsa_next_free_sgpr` (clamped to each target's limit).
    max_next_free_sgpr: u16 = 106, swarm = |u| u.int_in_range(1..=106)?;
    /// Largest group segment (LDS) size in bytes (clamped to each target's LDS).
    max_group_segment_fixed_size: u32 = 65536, swarm = |u| u.int_in_range(0..=65536)?;
    /// Largest private segment (scratch) size per work-item in bytes.
    max_private_segment_fixed_size: u32 = 16384, swarm = |u| u.int_in_range(0..=65536)?;
    /// Descriptors that leave kernarg_size 0 ("not given").
    kernarg_size_zero: bool = true, swarm = |u| mostly(u)?;
    /// Largest EF_AMDGPU_GENERIC_VERSION for generic targets (LLVM writes 1).
    max_generic_version: u8 = 1, swarm = |u| u.int_in_range(1..=3)?;
    /// SMEM instruction streams in kernel code (GFX8 and later): a drawn
    /// stream, then `s_waitcnt lgkmcnt(0)` (GFX12: `s_wait_kmcnt 0x0`) and
    /// `s_endpgm`; off, every kernel is a lone `s_endpgm`.
    smem_streams: bool = true, swarm = |u| mostly(u)?;
    /// Fewest SMEM instructions per stream (waits not counted).
    smem_min_len: usize = 0, swarm = |u| u.int_in_range(0..=8)?;
    /// Most SMEM instructions per stream (waits not counted).
    smem_max_len: usize = 24, swarm = |u| u.int_in_range(0..=64)?;
    /// SMEM `s_load_*` (GFX12 sub-dword loads included).
    smem_loads: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_buffer_load_*`.
    smem_buffer_loads: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_store_*` and `s_buffer_store_*` (GFX8, GFX9, gfx1010-1013).
    smem_stores: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_scratch_load_*` and `s_scratch_store_*` (GFX9, gfx1010-1013).
    smem_scratch: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_atomic_*` and `s_buffer_atomic_*` (GFX9, gfx1010-1013).
    smem_atomics: bool = true, swarm = |u| mostly(u)?;
    /// SMEM cache operations: `s_dcache_inv*`, `s_dcache_wb*`, `s_gl1_inv`,
    /// `s_dcache_discard*`.
    smem_cache_ops: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_memtime`, `s_memrealtime` and `s_get_waveid_in_workgroup`.
    smem_time: bool = true, swarm = |u| mostly(u)?;
    /// SMEM `s_atc_probe` and `s_atc_probe_buffer`.
    smem_probes: bool = true, swarm = |u| mostly(u)?;
    /// SMEM prefetches (GFX12 `s_prefetch_*`, `s_buffer_prefetch_data`).
    smem_prefetches: bool = true, swarm = |u| mostly(u)?;
    /// SMEM offsets held in an SGPR (alone or with an immediate); off, only
    /// immediate offsets (GFX12 prefetches then name `null`).
    smem_sgpr_offsets: bool = true, swarm = |u| mostly(u)?;
    /// SMEM cache-policy modifiers: `glc`, `dlc`, GFX12 `th:` and `scope:`.
    smem_modifiers: bool = true, swarm = |u| mostly(u)?;
    /// SMEM operands beyond s0-s105 and m0: `vcc`, trap temporaries (and
    /// GFX8 `tba`/`tma`), `exec` as a base, `null`, and on GFX8-9
    /// `flat_scratch` and `xnack_mask` (in kernels only where the
    /// descriptor reserves them).
    smem_special_registers: bool = true, swarm = |u| mostly(u)?;
    /// Which SMEM waits are written: `minimal` (only where a result is
    /// needed, with the largest count that suffices), `zero` (those waits,
    /// always for 0), or `random` (any sufficient count, plus extra waits).
    smem_waits: SmemWaits = SmemWaits::Random, swarm = |u| *u.choose(&SmemWaits::ALL)?;
    /// Most `NT_AMDGPU_METADATA` notes per code object (V3 and later): the
    /// kernels split between notes as ld.lld writes an object linked from
    /// several, which comgr merges; 1 writes one note.
    max_metadata_notes: usize = 3, swarm = |u| u.int_in_range(1..=4)?;
}

/// Most metadata notes one generated code object may hold.
pub const MAX_METADATA_NOTES: usize = MAX_KERNELS;

/// Most SMEM instructions one generated stream may hold.
pub const MAX_SMEM_LEN: usize = 1 << 20;

/// How a generated SMEM stream places its `s_waitcnt lgkmcnt` (GFX12:
/// `s_wait_kmcnt`) instructions; every policy keeps the stream valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmemWaits {
    /// Only the waits a later instruction needs, each with the largest
    /// count that retires what it needs.
    Minimal,
    /// The same waits, always for a count of 0.
    Zero,
    /// Needed waits with any count that suffices, and extra waits with
    /// any count between instructions.
    Random,
}

impl SmemWaits {
    /// Every policy.
    pub const ALL: [SmemWaits; 3] = [Self::Minimal, Self::Zero, Self::Random];
}

/// Why a configuration was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// The text is not valid JSON or TOML for a configuration.
    Parse(String),
    /// A file could not be read.
    Io(String),
    /// A knob name that does not exist.
    UnknownKnob(String),
    /// A processor name the oracle does not model as an HSA target.
    UnknownTarget(String),
    /// A code object version the generators cannot build.
    UnsupportedVersion(u8),
    /// The configuration allows no code object at all.
    Empty(&'static str),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse(e) => write!(f, "invalid configuration: {e}"),
            Self::Io(e) => write!(f, "cannot read configuration: {e}"),
            Self::UnknownKnob(k) => {
                write!(f, "unknown knob `{k}`; knobs are: ")?;
                let names: Vec<&str> = Config::KNOBS.iter().map(|(n, _)| *n).collect();
                f.write_str(&names.join(", "))
            }
            Self::UnknownTarget(t) => write!(f, "unknown or non-HSA processor `{t}`"),
            Self::UnsupportedVersion(v) => {
                write!(f, "code object version {v} is not generated (2 to 6 are)")
            }
            Self::Empty(why) => write!(f, "the configuration allows no code object: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Narrows the configuration to what the generators support: clamps
    /// maxima to their limits, makes minima no larger than maxima (by
    /// lowering the minimum), drops unknown processors and versions, and
    /// sorts and deduplicates the lists. Never switches a feature on.
    pub fn sanitize(&mut self) {
        self.targets
            .retain(|n| targets::by_name(n).is_some_and(|t| t.hsa));
        self.targets
            .sort_by_key(|n| targets::by_name(n).map_or(0, |t| t.mach));
        self.targets.dedup();
        self.code_object_versions
            .retain(|v| SUPPORTED_COVS.contains(v));
        self.code_object_versions.sort_unstable();
        self.code_object_versions.dedup();
        self.max_kernels = self.max_kernels.clamp(1, MAX_KERNELS);
        self.min_kernels = self.min_kernels.clamp(1, self.max_kernels);
        self.max_explicit_args = self.max_explicit_args.min(MAX_EXPLICIT_ARGS);
        self.max_by_value_size = self.max_by_value_size.clamp(1, MAX_BY_VALUE_SIZE);
        self.max_name_len = self.max_name_len.clamp(1, MAX_NAME_LEN);
        self.max_workitem_id = self.max_workitem_id.min(2);
        self.max_next_free_vgpr = self.max_next_free_vgpr.clamp(1, 512);
        self.max_next_free_sgpr = self.max_next_free_sgpr.clamp(1, 106);
        self.max_group_segment_fixed_size = self.max_group_segment_fixed_size.min(163_840);
        self.max_generic_version = self.max_generic_version.max(1);
        self.smem_max_len = self.smem_max_len.min(MAX_SMEM_LEN);
        self.smem_min_len = self.smem_min_len.min(self.smem_max_len);
        self.max_metadata_notes = self.max_metadata_notes.clamp(1, MAX_METADATA_NOTES);
    }

    /// Makes a drawn swarm configuration usable: if no listed processor
    /// can be generated in a listed version, every version is allowed and
    /// `rebuildable_only` dropped, and failing that every processor. Only
    /// the `Arbitrary` impl calls this; a user's configuration is rejected
    /// by [`Config::validate`] instead.
    fn ensure_generable(&mut self) {
        if crate::target::allowed_pairs(self).is_empty() {
            self.code_object_versions = SUPPORTED_COVS.to_vec();
            self.rebuildable_only = false;
        }
        if crate::target::allowed_pairs(self).is_empty() {
            self.targets = all_target_names();
        }
    }

    /// Checks that the configuration names only known processors and
    /// versions and allows at least one (processor, version) pair; used for
    /// configurations from files and the command line, where a typo should
    /// be an error rather than silently narrowed away.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for n in &self.targets {
            if !targets::by_name(n).is_some_and(|t| t.hsa) {
                return Err(ConfigError::UnknownTarget(n.clone()));
            }
        }
        for &v in &self.code_object_versions {
            if !SUPPORTED_COVS.contains(&v) {
                return Err(ConfigError::UnsupportedVersion(v));
            }
        }
        if self.targets.is_empty() {
            return Err(ConfigError::Empty("no target"));
        }
        if self.code_object_versions.is_empty() {
            return Err(ConfigError::Empty("no code object version"));
        }
        if crate::target::allowed_pairs(self).is_empty() {
            return Err(ConfigError::Empty(
                "no listed processor can be generated in a listed code object version \
                 (generic targets need V6; rebuildable_only limits processors)",
            ));
        }
        Ok(())
    }

    /// The processors the configuration lists, resolved.
    pub fn target_list(&self) -> Vec<&'static Target> {
        self.targets
            .iter()
            .filter_map(|n| targets::by_name(n))
            .filter(|t| t.hsa)
            .collect()
    }

    /// Reads a configuration from JSON; absent knobs keep their defaults.
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let c: Config =
            serde_json::from_str(text).map_err(|e| ConfigError::Parse(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Reads a configuration from TOML; absent knobs keep their defaults.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let c: Config = toml::from_str(text).map_err(|e| ConfigError::Parse(e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Reads a configuration file: TOML if its name ends in `.toml`, else JSON.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::Io(format!("{}: {e}", path.display())))?;
        if path.extension().is_some_and(|e| e == "toml") {
            Self::from_toml(&text)
        } else {
            Self::from_json(&text)
        }
    }

    /// The configuration as pretty-printed JSON (every knob, so a run's
    /// configuration can be recorded and replayed).
    pub fn to_json(&self) -> String {
        // A struct of plain fields always serialises.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Sets one knob from text, as `--config name=value` passes it: the
    /// value is read as JSON (`true`, `12`, `[4,5]`, `"gfx90a"`), and a bare
    /// word or comma list is accepted for lists of names and numbers
    /// (`targets=gfx90a,gfx1100`, `code_object_versions=5,6`).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        if !Self::KNOBS.iter().any(|(n, _)| *n == name) {
            return Err(ConfigError::UnknownKnob(name.to_owned()));
        }
        let mut json =
            serde_json::to_value(&*self).map_err(|e| ConfigError::Parse(e.to_string()))?;
        let current = json.get(name).cloned().unwrap_or(serde_json::Value::Null);
        let parsed = serde_json::from_str::<serde_json::Value>(value)
            .ok()
            .filter(|v| same_shape(v, &current))
            .unwrap_or_else(|| list_from_words(value, &current));
        if let Some(slot) = json.get_mut(name) {
            *slot = parsed;
        }
        let c: Config = serde_json::from_value(json)
            .map_err(|e| ConfigError::Parse(format!("{name}={value}: {e}")))?;
        c.validate()?;
        *self = c;
        Ok(())
    }
}

/// True if `v` could replace `current` (same JSON kind).
fn same_shape(v: &serde_json::Value, current: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    matches!(
        (v, current),
        (V::Bool(_), V::Bool(_)) | (V::Number(_), V::Number(_)) | (V::Array(_), V::Array(_))
    )
}

/// Reads `a,b,c` as a JSON list (numbers where they parse) when the knob is
/// a list, else as a JSON string (which then fails to deserialise with a
/// message naming the knob).
fn list_from_words(value: &str, current: &serde_json::Value) -> serde_json::Value {
    if current.is_array() {
        serde_json::Value::Array(
            value
                .split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(|w| match w.parse::<u64>() {
                    Ok(n) => serde_json::Value::from(n),
                    Err(_) => serde_json::Value::from(w),
                })
                .collect(),
        )
    } else {
        serde_json::Value::from(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_complete() {
        let c = Config::default();
        c.validate().expect("default config is valid");
        let mut s = c.clone();
        s.sanitize();
        assert_eq!(s, c, "sanitize changes nothing in the default");
        assert_eq!(c.targets.len(), targets::hsa_targets().count());
        assert_eq!(Config::KNOBS.len(), 62);
        assert!(Config::KNOBS.iter().all(|(_, d)| !d.is_empty()));
    }

    #[test]
    fn json_and_toml_round_trip() {
        let c = Config {
            targets: vec!["gfx90a".into(), "gfx1100".into()],
            code_object_versions: vec![5],
            max_kernels: 2,
            ..Config::default()
        };
        let j = c.to_json();
        assert_eq!(Config::from_json(&j), Ok(c.clone()));
        let t = toml::to_string(&c).expect("serialises");
        assert_eq!(Config::from_toml(&t), Ok(c.clone()));
        // Absent keys keep their defaults.
        let partial = Config::from_toml("max_kernels = 3\n").expect("parses");
        assert_eq!(partial.max_kernels, 3);
        assert_eq!(partial.targets, Config::default().targets);
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(matches!(
            Config::from_json(r#"{"no_such_knob": 1}"#),
            Err(ConfigError::Parse(_))
        ));
        assert_eq!(
            Config::from_json(r#"{"targets": ["gfx9000"]}"#),
            Err(ConfigError::UnknownTarget("gfx9000".into()))
        );
        assert_eq!(
            Config::from_json(r#"{"code_object_versions": [1]}"#),
            Err(ConfigError::UnsupportedVersion(1))
        );
        assert!(matches!(
            Config::from_json(r#"{"targets": ["gfx9-generic"], "code_object_versions": [4, 5]}"#),
            Err(ConfigError::Empty(_))
        ));
        assert!(matches!(
            Config::from_json(r#"{"targets": []}"#),
            Err(ConfigError::Empty(_))
        ));
    }

    #[test]
    fn set_knobs_from_text() {
        let mut c = Config::default();
        c.set("max_kernels", "7").expect("number");
        assert_eq!(c.max_kernels, 7);
        c.set("wave32", "false").expect("bool");
        assert!(!c.wave32);
        c.set("targets", "gfx90a, gfx1100").expect("word list");
        assert_eq!(c.targets, ["gfx90a", "gfx1100"]);
        c.set("code_object_versions", "[5,6]").expect("json list");
        assert_eq!(c.code_object_versions, [5, 6]);
        c.set("code_object_versions", "4")
            .expect("single number as list");
        assert_eq!(c.code_object_versions, [4]);
        assert!(matches!(
            c.set("nope", "1"),
            Err(ConfigError::UnknownKnob(_))
        ));
        assert!(c.set("max_kernels", "many").is_err());
        assert!(matches!(
            c.set("targets", "gfx9000"),
            Err(ConfigError::UnknownTarget(_))
        ));
        assert_eq!(c.code_object_versions, [4], "a failed set changes nothing");
        assert!(ConfigError::UnknownKnob("x".into())
            .to_string()
            .contains("max_kernels"));
    }

    #[test]
    fn sanitize_only_narrows() {
        let mut c = Config {
            min_kernels: 9,
            max_kernels: 1000,
            max_name_len: 0,
            max_workitem_id: 7,
            targets: vec![
                "gfx90a".into(),
                "nope".into(),
                "gfx90a".into(),
                "r600".into(),
            ],
            code_object_versions: vec![7, 5, 1, 5],
            ..Config::default()
        };
        c.sanitize();
        assert_eq!((c.min_kernels, c.max_kernels), (9, MAX_KERNELS));
        assert_eq!(c.max_name_len, 1);
        assert_eq!(c.max_workitem_id, 2);
        assert_eq!(c.targets, ["gfx90a"]);
        assert_eq!(c.code_object_versions, [5]);
        let mut d = Config {
            min_kernels: 5,
            max_kernels: 2,
            ..Config::default()
        };
        d.sanitize();
        assert_eq!((d.min_kernels, d.max_kernels), (2, 2));
    }

    #[test]
    fn swarm_configs_are_sane_and_vary() {
        let mut seen_off = 0;
        for seed in 0u8..64 {
            let bytes: Vec<u8> = (0..512u32)
                .map(|i| {
                    (i as u8)
                        .wrapping_mul(31)
                        .wrapping_add(seed.wrapping_mul(97))
                        ^ (i >> 3) as u8
                })
                .collect();
            let mut u = Unstructured::new(&bytes);
            let c = Config::arbitrary(&mut u).expect("draws");
            let mut s = c.clone();
            s.sanitize();
            assert_eq!(s, c, "swarm configs come sanitized");
            assert!(!c.targets.is_empty() && !c.code_object_versions.is_empty());
            assert!(c.min_kernels <= c.max_kernels);
            if !c.global_buffer_args {
                seen_off += 1;
            }
        }
        assert!(seen_off > 0, "swarm switches features off");
    }
}
