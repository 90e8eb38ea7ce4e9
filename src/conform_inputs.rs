//! Finding the code objects `conform INPUT...` compares: the same finder
//! `check` uses (`input::expand` for paths, FIFOs refused unopened, each
//! file once; `container::scan` for bundles, compressed bundles and host
//! binaries; `report::not_a_code_object` for what is skipped and what is
//! named as not read), turned into a [`GivenSet`] whose loader reads each
//! object again only when its unit runs.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hsaco_conform::conform::given::{GivenObject, GivenSet, Loader, Place};
use hsaco_oracle::container::{self, DEFAULT_UNPACK_LIMIT};
use hsaco_oracle::elf::Elf;
use hsaco_oracle::targets::Target;
use hsaco_oracle::Sink;
use serde_json::{json, Value};

use crate::input;

/// An input (or part of one) that could not be read, `check`'s "could not
/// check" line.
pub struct NotRead {
    /// `PATH` or `PATH [MEMBER]`.
    pub what: String,
    /// Why.
    pub reason: String,
}

/// What the scan of the inputs found.
pub struct Found {
    /// The code objects to compare, in the order found.
    pub objects: Vec<GivenObject>,
    /// Files scanned (every regular file the paths reach, once).
    pub files: usize,
    /// Files in directories that hold no code object (and whose name and
    /// first bytes do not say they should).
    pub skipped: usize,
    /// Paths that reach a file already listed.
    pub duplicates: usize,
    /// Inputs that could not be read: missing paths, FIFOs, a named file
    /// that holds no code object, empty or truncated code objects, broken
    /// bundles.
    pub not_read: Vec<NotRead>,
    /// Code objects whose `e_flags` name no processor the oracle models,
    /// with the processor-less reason: read, but not compared.
    pub no_target: Vec<NotRead>,
    /// Code objects of processors `--targets` leaves out.
    pub filtered: usize,
    /// A digest of every object's file (path, size, modification time,
    /// inode) and place: the resume key, so that `--out` resumes only the
    /// same inputs.
    pub digest: String,
    /// The objects as the comparisons read them ([`given_set`]), which
    /// also records those that could not be read again during the run.
    given: std::sync::OnceLock<Arc<GivenSet>>,
}

impl Found {
    /// The inputs' part of the JSON report.
    pub fn json(&self) -> Value {
        let mut per: BTreeMap<&str, u64> = BTreeMap::new();
        for o in &self.objects {
            *per.entry(o.target.name).or_insert(0) += 1;
        }
        let list = |v: &[NotRead]| -> Vec<Value> {
            v.iter()
                .map(|n| json!({"input": n.what, "reason": n.reason}))
                .collect()
        };
        json!({
            "files": self.files,
            "code_objects": self.objects.len(),
            "per_target": per,
            "skipped": self.skipped,
            "duplicates": self.duplicates,
            "filtered": self.filtered,
            "not_read": list(&self.not_read),
            "not_read_during_run": self
                .unread()
                .iter()
                .map(|(what, why)| json!({"input": what, "reason": why}))
                .collect::<Vec<_>>(),
            "no_target": list(&self.no_target),
        })
    }

    /// Objects that could not be read again when their batch ran.
    pub fn unread(&self) -> Vec<(String, String)> {
        self.given.get().map_or_else(Vec::new, |g| g.unread())
    }

    /// True when some input could not be read, at the scan or during the
    /// run (exit status 2 unless there are new findings, as `check`).
    pub fn incomplete(&self) -> bool {
        !self.not_read.is_empty() || !self.unread().is_empty()
    }

    /// The lines the text report starts with: each input not read or not
    /// compared, then one summary line.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for n in &self.not_read {
            s.push_str(&format!("{}: could not read: {}\n", n.what, n.reason));
        }
        for (what, why) in self.unread() {
            s.push_str(&format!(
                "{what}: could not read again during the run: {why}\n"
            ));
        }
        for n in &self.no_target {
            s.push_str(&format!("{}: not compared: {}\n", n.what, n.reason));
        }
        let mut per: BTreeMap<&str, u64> = BTreeMap::new();
        for o in &self.objects {
            *per.entry(o.target.name).or_insert(0) += 1;
        }
        let per: Vec<String> = per.iter().map(|(t, n)| format!("{t} {n}")).collect();
        s.push_str(&format!(
            "inputs: {} code objects ({}) in {} files; {} skipped (no code object), {} duplicate paths, {} not read, {} without a known processor",
            self.objects.len(),
            per.join(", "),
            self.files,
            self.skipped,
            self.duplicates,
            self.not_read.len(),
            self.no_target.len(),
        ));
        if self.filtered > 0 {
            s.push_str(&format!(", {} left out by --targets", self.filtered));
        }
        s.push('\n');
        s
    }
}

fn not_read(path: &Path, member: Option<&str>, reason: impl Into<String>) -> NotRead {
    NotRead {
        what: match member {
            Some(m) => format!("{} [{m}]", path.display()),
            None => path.display().to_string(),
        },
        reason: reason.into(),
    }
}

/// Where `part` starts in `whole`, if it is a slice of it.
fn offset_in(whole: &[u8], part: &[u8]) -> Option<u64> {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    (start <= whole.len() && part.len() <= whole.len() - start).then_some(start as u64)
}

/// Why a code object is not compared.
enum Unusable {
    /// Its ELF header cannot be read (truncated, not ELF64): the oracle's
    /// first finding.
    Unreadable(String),
    /// Its `e_flags` name no processor the oracle models.
    NoTarget(String),
}

/// The processor `data`'s `e_flags` name, or why it is not compared.
fn processor(data: &[u8]) -> Result<&'static Target, Unusable> {
    let mut sink = Sink::new();
    let Some(elf) = Elf::parse(data, &mut sink) else {
        let (found, _) = sink.into_parts();
        return Err(Unusable::Unreadable(found.first().map_or_else(
            || "not an ELF file the oracle reads".to_owned(),
            |v| format!("{}: {}", v.rule.id, v.message),
        )));
    };
    elf.target.ok_or_else(|| {
        Unusable::NoTarget(format!(
            "e_flags {:#x} names no processor the oracle models (EF_AMDGPU_MACH {:#04x})",
            elf.header.flags,
            elf.header.flags & hsaco_oracle::elf::raw::EF_AMDGPU_MACH
        ))
    })
}

/// Scans `paths` as `check` does. `keep` says which processors to compare
/// (`--targets`; `None`: all).
pub fn scan(paths: &[PathBuf], keep: Option<&[&'static Target]>) -> Found {
    let inputs = input::expand(paths);
    let mut f = Found {
        objects: Vec::new(),
        files: inputs.files.len() + inputs.problems.len(),
        skipped: inputs.skipped,
        duplicates: inputs.duplicates,
        not_read: inputs
            .problems
            .iter()
            .map(|p| not_read(&p.path, None, p.reason.clone()))
            .collect(),
        no_target: Vec::new(),
        filtered: 0,
        digest: String::new(),
        given: std::sync::OnceLock::new(),
    };
    let mut fingerprint = String::new();
    for inp in &inputs.files {
        let path = &inp.path;
        let bytes = match input::map_reason(path) {
            Ok(b) => b,
            Err(e) => {
                f.not_read.push(not_read(path, None, e));
                continue;
            }
        };
        if let Ok(m) = std::fs::metadata(path) {
            fingerprint.push_str(&format!(
                "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\n",
                path.display(),
                m.len(),
                m.mtime(),
                m.mtime_nsec(),
                m.ino()
            ));
        }
        let scan = container::scan(&bytes);
        if scan.not_a_code_object {
            match crate::report::not_a_code_object(path, &bytes, inp.explicit) {
                Some(why) => f.not_read.push(not_read(path, None, why)),
                None => f.skipped += 1,
            }
            continue;
        }
        let add = |member: Option<&str>, data: &[u8], place: Place, f: &mut Found| match processor(
            data,
        ) {
            Ok(t) if keep.is_none_or(|k| k.iter().any(|x| x.name == t.name)) => {
                f.objects.push(GivenObject {
                    path: path.clone(),
                    member: member.map(str::to_owned),
                    place,
                    target: t,
                })
            }
            Ok(_) => f.filtered += 1,
            Err(Unusable::Unreadable(why)) => f.not_read.push(not_read(path, member, why)),
            Err(Unusable::NoTarget(why)) => f.no_target.push(not_read(path, member, why)),
        };
        for m in &scan.members {
            let Some(start) = offset_in(&bytes, m.data) else {
                f.not_read.push(not_read(
                    path,
                    m.name.as_deref(),
                    "the code object is not a part of the file as it is on disk",
                ));
                continue;
            };
            let place = Place::Range {
                start,
                end: start + m.data.len() as u64,
            };
            add(m.name.as_deref(), m.data, place, &mut f);
        }
        for (index, c) in scan.compressed.iter().enumerate() {
            match c.unpack(DEFAULT_UNPACK_LIMIT) {
                Ok(u) => {
                    let e = u.entries();
                    for m in &e.members {
                        let Some(start) = offset_in(u.bytes(), m.data) else {
                            continue;
                        };
                        let place = Place::Compressed {
                            index,
                            start,
                            end: start + m.data.len() as u64,
                        };
                        add(m.name.as_deref(), m.data, place, &mut f);
                    }
                    if let Some(error) = e.error {
                        f.not_read.push(not_read(path, Some(&c.name), error));
                    }
                }
                Err(error) => f.not_read.push(not_read(path, Some(&c.name), error)),
            }
        }
        for e in &scan.errors {
            f.not_read.push(not_read(path, None, e.clone()));
        }
    }
    for o in &f.objects {
        fingerprint.push_str(&format!(
            "{}\u{1f}{:?}\u{1f}{:?}\u{1f}{}\n",
            o.path.display(),
            o.member,
            o.place,
            o.target.name
        ));
    }
    use sha2::Digest;
    f.digest = hsaco_conform::conform::hex_bytes::encode(
        sha2::Sha256::digest(fingerprint.as_bytes())
            .get(..16)
            .unwrap_or(&[]),
    );
    f
}

/// Reads given objects again from their files (mapped, as `check` maps
/// them), keeping the last decompressed bundle: the objects of one bundle
/// are compared one chunk after another.
#[derive(Default)]
pub struct FileLoader {
    last: Mutex<Option<(PathBuf, usize, Arc<container::Unpacked>)>>,
}

impl FileLoader {
    fn unpacked(&self, path: &Path, index: usize) -> Result<Arc<container::Unpacked>, String> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, k, u)) = last.as_ref() {
            if p == path && *k == index {
                return Ok(Arc::clone(u));
            }
        }
        let bytes = input::map(path)?;
        let scan = container::scan(&bytes);
        let c = scan
            .compressed
            .get(index)
            .ok_or_else(|| format!("{}: the file changed since it was scanned", path.display()))?;
        let u = Arc::new(c.unpack(DEFAULT_UNPACK_LIMIT)?);
        *last = Some((path.to_owned(), index, Arc::clone(&u)));
        Ok(u)
    }
}

impl Loader for FileLoader {
    fn load(&self, o: &GivenObject) -> Result<Vec<u8>, String> {
        let changed = || {
            format!(
                "{}: the file changed since it was scanned",
                o.path.display()
            )
        };
        let range = |start: u64, end: u64| -> Result<std::ops::Range<usize>, String> {
            Ok(usize::try_from(start).map_err(|_| changed())?
                ..usize::try_from(end).map_err(|_| changed())?)
        };
        match o.place {
            Place::Range { start, end } => {
                let bytes = input::map(&o.path)?;
                bytes
                    .get(range(start, end)?)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(changed)
            }
            Place::Compressed { index, start, end } => {
                let u = self.unpacked(&o.path, index)?;
                u.bytes()
                    .get(range(start, end)?)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(changed)
            }
        }
    }
}

/// The set of `found`'s objects, read by a [`FileLoader`].
pub fn given_set(found: &Found) -> Arc<GivenSet> {
    Arc::clone(found.given.get_or_init(|| {
        Arc::new(GivenSet::new(
            found.objects.clone(),
            Box::new(FileLoader::default()),
        ))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_conform::conform::given::GivenCmp;
    use hsaco_conform::conform::Comparison;

    /// A file that goes away between the scan and its batch is reported
    /// with the reason (and makes the run incomplete), never dropped.
    #[test]
    fn an_object_that_cannot_be_read_again_is_reported() {
        let d = tempfile::tempdir().expect("temporary folder");
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/seeds/comgr_metadata/clang19-gfx900-v4-args.hsaco");
        let p = d.path().join("k.hsaco");
        std::fs::copy(&src, &p).expect("copy a real code object");
        let found = scan(std::slice::from_ref(&p), None);
        assert_eq!(found.objects.len(), 1);
        assert!(!found.incomplete());
        let set = given_set(&found);
        let cmp = GivenCmp::new(
            hsaco_conform::conform::ComparisonId::Descriptors,
            Arc::clone(&set),
        );
        let t = set.targets()[0];
        std::fs::remove_file(&p).expect("remove");
        assert!(cmp.inputs(t, 0).is_empty());
        let unread = found.unread();
        assert_eq!(unread.len(), 1, "{unread:?}");
        assert_eq!(unread[0].0, p.display().to_string());
        assert!(found.incomplete());
        let text = found.text();
        assert!(
            text.contains(&format!(
                "{}: could not read again during the run: ",
                p.display()
            )),
            "{text}"
        );
        assert_eq!(
            found.json()["not_read_during_run"][0]["input"],
            p.display().to_string()
        );
    }
}
