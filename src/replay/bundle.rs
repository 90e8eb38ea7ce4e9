//! A replay bundle: a folder that holds everything needed to dispatch a
//! set of probes on another machine.
//!
//! ```text
//! DIR/bundle.json    {"format":"hsaco-replay-bundle","version":1,"cases":N}
//! DIR/plans.jsonl    one hsaco_oracle::probe::Plan per line (JSON)
//! DIR/OBJECT         each plan's code object, at its `object` path
//! ```
//!
//! `object` is a path relative to the folder, with no `..` and not
//! absolute. Case names are unique. [`write_bundle`] writes the objects
//! and the plans first and the header last, so a folder with a header is
//! a whole bundle; it is how `replay --plan` and the tests make bundles.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use hsaco_oracle::probe::{Plan, HEADER_BYTES};
use serde::{Deserialize, Serialize};

use super::run::{kernarg_bytes, output_init_bytes, MAX_OUTPUT_BYTES};
use crate::files::{write_atomic, write_durable};

/// The header file's name.
pub const HEADER: &str = "bundle.json";
/// The plans file's name.
pub const PLANS: &str = "plans.jsonl";
/// `format` in the header.
pub const FORMAT: &str = "hsaco-replay-bundle";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;

/// `bundle.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Lines of `plans.jsonl`.
    pub cases: usize,
}

/// A bundle, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    /// The folder.
    pub dir: PathBuf,
    /// Its plans, in file order.
    pub plans: Vec<Plan>,
}

impl Bundle {
    /// Where `plan`'s code object is.
    pub fn object_path(&self, plan: &Plan) -> PathBuf {
        self.dir.join(&plan.object)
    }
}

/// Why a folder is not a bundle: each names the file (and line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleError {
    /// The folder or a file could not be read.
    Read {
        /// The path.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// `bundle.json` is not a header of a format this code reads.
    Header {
        /// The header.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A line of `plans.jsonl` is not a plan, or a plan is unusable.
    Line {
        /// `plans.jsonl`.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A plan's code object is missing.
    MissingObject {
        /// The case.
        case: String,
        /// Where it should be.
        path: PathBuf,
    },
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Read { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            BundleError::Header { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
            BundleError::Line {
                path,
                line,
                message,
            } => write!(f, "{} line {line}: {message}", path.display()),
            BundleError::MissingObject { case, path } => {
                write!(f, "case {case}: code object {} is missing", path.display())
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// True for a relative path that stays inside the folder.
fn inside(p: &str) -> bool {
    let p = Path::new(p);
    !p.as_os_str().is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Reads the bundle in `dir`: the header, every plan, and checks that each
/// plan's object exists.
pub fn read_bundle(dir: &Path) -> Result<Bundle, BundleError> {
    if !dir.is_dir() {
        return Err(BundleError::Read {
            path: dir.to_owned(),
            message: if dir.exists() {
                "not a folder".into()
            } else {
                "no such folder".into()
            },
        });
    }
    let hp = dir.join(HEADER);
    let text = std::fs::read_to_string(&hp).map_err(|e| BundleError::Read {
        path: hp.clone(),
        message: e.to_string(),
    })?;
    let header: Header = serde_json::from_str(&text).map_err(|e| BundleError::Header {
        path: hp.clone(),
        message: format!("not a bundle header: {e}"),
    })?;
    if header.format != FORMAT {
        return Err(BundleError::Header {
            path: hp,
            message: format!("format {:?}, expected {FORMAT:?}", header.format),
        });
    }
    if header.version != VERSION {
        return Err(BundleError::Header {
            path: hp,
            message: format!(
                "bundle version {} (this hsaco-conform reads version {VERSION})",
                header.version
            ),
        });
    }
    let pp = dir.join(PLANS);
    let text = std::fs::read_to_string(&pp).map_err(|e| BundleError::Read {
        path: pp.clone(),
        message: e.to_string(),
    })?;
    let mut plans: Vec<Plan> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let bad = |message: String| BundleError::Line {
            path: pp.clone(),
            line: i + 1,
            message,
        };
        let plan: Plan =
            serde_json::from_str(l).map_err(|e| bad(format!("not a probe plan: {e}")))?;
        if plan.case.is_empty() {
            return Err(bad("the case has no name".into()));
        }
        if !seen.insert(plan.case.clone()) {
            return Err(bad(format!("case {} is listed twice", plan.case)));
        }
        if !inside(&plan.object) {
            return Err(bad(format!(
                "object {:?} is not a relative path inside the bundle",
                plan.object
            )));
        }
        if plan.lanes != 32 && plan.lanes != 64 {
            return Err(bad(format!("lanes is {}, not 32 or 64", plan.lanes)));
        }
        if plan.output_bytes < HEADER_BYTES || plan.output_bytes > MAX_OUTPUT_BYTES {
            return Err(bad(format!(
                "output_bytes {} is not between the {HEADER_BYTES}-byte header and {MAX_OUTPUT_BYTES}",
                plan.output_bytes
            )));
        }
        if let Err(e) = kernarg_bytes(&plan.kernarg_hex) {
            return Err(bad(e.to_string()));
        }
        match output_init_bytes(&plan.output_init_hex) {
            Err(e) => return Err(bad(e.to_string())),
            Ok(init)
                if plan.output_init_offset.saturating_add(init.len() as u64)
                    > plan.output_bytes =>
            {
                return Err(bad(format!(
                    "output_init_hex ({} bytes at {}) does not fit the {}-byte output buffer",
                    init.len(),
                    plan.output_init_offset,
                    plan.output_bytes
                )))
            }
            Ok(_) => {}
        }
        let path = dir.join(&plan.object);
        let len = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => m.len(),
            _ => {
                return Err(BundleError::MissingObject {
                    case: plan.case,
                    path,
                })
            }
        };
        if let Some(at) = plan
            .patch_offsets
            .iter()
            .find(|&&at| at.checked_add(4).is_none_or(|end| end > len))
        {
            return Err(bad(format!(
                "patch offset {at:#x} is outside the {len}-byte code object {}",
                plan.object
            )));
        }
        plans.push(plan);
    }
    if plans.len() != header.cases {
        return Err(BundleError::Header {
            path: dir.join(HEADER),
            message: format!(
                "says {} cases but {PLANS} has {}",
                header.cases,
                plans.len()
            ),
        });
    }
    Ok(Bundle {
        dir: dir.to_owned(),
        plans,
    })
}

/// Writes a bundle of `cases` (each plan with its code object's bytes)
/// into `dir`, creating it: the objects, `plans.jsonl`, and the header
/// last. Refuses an object path outside the folder and duplicate cases.
pub fn write_bundle(dir: &Path, cases: &[(Plan, Vec<u8>)]) -> std::io::Result<()> {
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    let mut seen = std::collections::HashSet::new();
    for (p, _) in cases {
        if !inside(&p.object) {
            return Err(invalid(format!(
                "case {}: object {:?} is not a relative path inside the bundle",
                p.case, p.object
            )));
        }
        if !seen.insert(p.case.as_str()) {
            return Err(invalid(format!("case {} is listed twice", p.case)));
        }
    }
    std::fs::create_dir_all(dir)?;
    let mut lines = String::new();
    for (p, bytes) in cases {
        let path = dir.join(&p.object);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_atomic(&path, bytes)?;
        lines.push_str(&serde_json::to_string(p).map_err(std::io::Error::other)?);
        lines.push('\n');
    }
    write_durable(&dir.join(PLANS), lines.as_bytes())?;
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        cases: cases.len(),
    };
    let mut h = serde_json::to_string(&header).map_err(std::io::Error::other)?;
    h.push('\n');
    write_durable(&dir.join(HEADER), h.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::probe::Shape;

    pub(crate) fn plan(case: &str) -> Plan {
        Plan {
            case: case.into(),
            object: format!("objects/{case}.hsaco"),
            target: "gfx90a".into(),
            kernel: "probe".into(),
            lanes: 64,
            shape: Shape {
                grid: [64, 1, 1],
                workgroup: [64, 1, 1],
            },
            captured_sgprs: 16,
            private_segment_size: 0,
            group_segment_size: 0,
            kernarg_hex: "00".into(),
            output_bytes: 64 + 1280,
            patch_offsets: [0, 4],
            kind: Default::default(),
            output_init_hex: String::new(),
            output_init_offset: 0,
        }
    }

    #[test]
    fn bundles_round_trip() {
        let d = tempfile::tempdir().expect("tmp");
        let cases = vec![
            (plan("a"), vec![1, 2, 3, 4, 5, 6, 7, 8]),
            (plan("b"), b"\x7fELF\0\0\0\0".to_vec()),
        ];
        write_bundle(d.path(), &cases).expect("write");
        let b = read_bundle(d.path()).expect("read");
        assert_eq!(
            b.plans,
            cases.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>()
        );
        assert_eq!(
            std::fs::read(b.object_path(&b.plans[1])).expect("object"),
            b"\x7fELF\0\0\0\0"
        );
    }

    #[test]
    fn bad_bundles_are_one_line_errors() {
        let d = tempfile::tempdir().expect("tmp");
        let missing = d.path().join("nope");
        let e = read_bundle(&missing).expect_err("missing");
        assert!(e.to_string().ends_with("nope: no such folder"), "{e}");

        write_bundle(d.path(), &[(plan("a"), vec![0; 8])]).expect("write");
        let plans = d.path().join(PLANS);
        let good = std::fs::read_to_string(&plans).expect("plans");
        std::fs::write(&plans, format!("{good}{{\"case\": 3}}\n")).expect("edit");
        let e = read_bundle(d.path()).expect_err("bad line");
        let t = e.to_string();
        assert!(t.contains("plans.jsonl line 2: not a probe plan"), "{t}");
        assert!(!t.contains('\n'));

        std::fs::write(&plans, format!("{good}{good}")).expect("edit");
        let e = read_bundle(d.path()).expect_err("duplicate");
        assert!(
            e.to_string().contains("line 2: case a is listed twice"),
            "{e}"
        );

        let mut p = plan("a");
        p.patch_offsets = [0, 5];
        std::fs::write(&plans, serde_json::to_string(&p).expect("json")).expect("edit");
        let e = read_bundle(d.path()).expect_err("patch");
        assert!(
            e.to_string()
                .contains("line 1: patch offset 0x5 is outside the 8-byte"),
            "{e}"
        );
        p.patch_offsets = [0, 4];
        p.output_bytes = 1 << 40;
        std::fs::write(&plans, serde_json::to_string(&p).expect("json")).expect("edit");
        let e = read_bundle(d.path()).expect_err("size");
        assert!(
            e.to_string().contains("line 1: output_bytes 1099511627776"),
            "{e}"
        );
        p.output_bytes = 64;
        p.kernarg_hex = "0g".into();
        std::fs::write(&plans, serde_json::to_string(&p).expect("json")).expect("edit");
        let e = read_bundle(d.path()).expect_err("hex");
        assert!(e.to_string().contains("line 1: kernarg_hex"), "{e}");

        std::fs::write(&plans, &good).expect("edit");
        std::fs::remove_file(d.path().join("objects/a.hsaco")).expect("rm");
        let e = read_bundle(d.path()).expect_err("no object");
        assert!(e.to_string().starts_with("case a: code object "), "{e}");
        assert!(e.to_string().ends_with("a.hsaco is missing"), "{e}");

        std::fs::write(
            d.path().join(HEADER),
            "{\"format\":\"x\",\"version\":1,\"cases\":1}",
        )
        .expect("edit");
        let e = read_bundle(d.path()).expect_err("format");
        assert!(e.to_string().contains("format \"x\""), "{e}");

        let mut p = plan("c");
        p.object = "../c.hsaco".into();
        assert!(write_bundle(d.path(), &[(p, vec![])]).is_err());
    }
}
