//! `conform` on code objects the user names (files, bundles, host binaries,
//! directories) instead of generated ones.
//!
//! The caller finds the objects (the same finder `check` uses: `input`
//! expansion and `hsaco_oracle::container::scan`) and hands over a
//! [`GivenSet`]: where each object lives, its processor (from `e_flags`)
//! and a [`Loader`] that reads its bytes when a unit needs them, so a
//! directory of gigabytes is never held in memory at once.
//!
//! Every object comparison that reads an existing object runs on them
//! through [`GivenCmp`], judged by the same code as for generated objects
//! ([`super::object_cmp::ObjectCmp`]). Comparisons that start from
//! the generator's source (`rebuild`, `mutants`) or from instruction words
//! (`smem-disasm`, `smem-encode`) do not apply: [`Inapplicable`] lists
//! them per processor as not applicable, so the report shows why they did
//! not run. Given objects are not reduced (the reducer edits the
//! generator's model, which a given object does not have).

use std::collections::BTreeMap;
use std::sync::Arc;

use hsaco_oracle::targets::Target;

use super::cases::PER_CHUNK;
use super::object_cmp::ObjectCmp;
use super::{Comparison, ComparisonId, Input, Peer, Verdict, View};

/// Reads the bytes of a given object.
pub trait Loader: Send + Sync {
    /// The bytes of `object`, or why they cannot be read (the file changed
    /// or vanished since it was scanned).
    fn load(&self, object: &GivenObject) -> Result<Vec<u8>, String>;
}

/// Where a given object lives inside its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Bytes `start..end` of the file as it is on disk (a plain code
    /// object, a bundle entry, a `.hip_fatbin` entry, an embedded image).
    Range {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
    /// Bytes `start..end` of the `index`th compressed bundle of the file,
    /// once decompressed.
    Compressed {
        /// Which compressed bundle, in file order.
        index: usize,
        /// First byte in the decompressed bundle.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
}

/// One code object the user named.
#[derive(Clone, Debug)]
pub struct GivenObject {
    /// The file, as found (the path named, or found in a named folder).
    pub path: std::path::PathBuf,
    /// The bundle entry or embedded image (`check`'s member name), `None`
    /// for a plain code object.
    pub member: Option<String>,
    /// Where its bytes are.
    pub place: Place,
    /// The processor its `e_flags` name.
    pub target: &'static Target,
}

impl GivenObject {
    /// `PATH` or `PATH [MEMBER]`, as `check` names it.
    pub fn origin(&self) -> String {
        match &self.member {
            Some(m) => format!("{} [{m}]", self.path.display()),
            None => self.path.display().to_string(),
        }
    }

    /// A file name for reproducers: the file's name, then the member's
    /// (characters a shell or a folder would misread replaced by `_`),
    /// ending in `.hsaco` unless it already ends in a code object's
    /// extension.
    pub fn file_name(&self) -> String {
        let base = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "object".to_owned());
        let mut name = match &self.member {
            Some(m) => format!("{base}@{m}"),
            None => base,
        };
        name = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "+-_.@".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // Not a hidden file, and not too long for a file system.
        if name.starts_with('.') {
            name.insert(0, '_');
        }
        if name.len() > 180 {
            let cut = name
                .char_indices()
                .map(|(k, _)| k)
                .take_while(|k| *k <= 180)
                .last()
                .unwrap_or(0);
            name.truncate(cut);
        }
        let ext = std::path::Path::new(&name)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("hsaco" | "co")) {
            name.push_str(".hsaco");
        }
        name
    }
}

/// The given objects, grouped by processor, and how to read them.
pub struct GivenSet {
    objects: Vec<GivenObject>,
    by_target: BTreeMap<&'static str, Vec<usize>>,
    loader: Box<dyn Loader>,
    /// Objects that could not be read again when their batch ran, with the
    /// reason (reported, never dropped silently).
    unread: std::sync::Mutex<BTreeMap<usize, String>>,
}

impl GivenSet {
    /// The set of `objects` (in the order found), read with `loader`.
    pub fn new(objects: Vec<GivenObject>, loader: Box<dyn Loader>) -> Self {
        let mut by_target: BTreeMap<&'static str, Vec<usize>> = BTreeMap::new();
        for (k, o) in objects.iter().enumerate() {
            by_target.entry(o.target.name).or_default().push(k);
        }
        Self {
            objects,
            by_target,
            loader,
            unread: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    /// Objects the scan found that could not be read again when their
    /// batch ran (the file changed or went away): origin and reason, in
    /// the order found.
    pub fn unread(&self) -> Vec<(String, String)> {
        let unread = self.unread.lock().unwrap_or_else(|e| e.into_inner());
        unread
            .iter()
            .filter_map(|(k, why)| Some((self.objects.get(*k)?.origin(), why.clone())))
            .collect()
    }

    /// Every object, in the order found.
    pub fn objects(&self) -> &[GivenObject] {
        &self.objects
    }

    /// The processors of the objects, each once, by name.
    pub fn targets(&self) -> Vec<&'static Target> {
        let mut v: Vec<&'static Target> = Vec::new();
        for o in &self.objects {
            if !v.iter().any(|t| t.name == o.target.name) {
                v.push(o.target);
            }
        }
        v.sort_by_key(|t| t.name);
        v
    }

    /// The objects of `target`'s chunk `chunk` (indices into
    /// [`GivenSet::objects`]).
    fn chunk(&self, target: &Target, chunk: u64) -> &[usize] {
        let all = self
            .by_target
            .get(target.name)
            .map_or(&[][..], Vec::as_slice);
        let per = PER_CHUNK as usize;
        let first = usize::try_from(chunk)
            .unwrap_or(usize::MAX)
            .saturating_mul(per);
        all.get(first..).map_or(&[][..], |r| &r[..r.len().min(per)])
    }
}

/// An object comparison (`descriptors`, `metadata`, `comgr-metadata`) on
/// given objects: the inputs of a processor are its objects, four per
/// chunk; views are judged as for generated objects.
pub struct GivenCmp {
    judge: ObjectCmp,
    set: Arc<GivenSet>,
    /// Objects that could not be read when their chunk was made (changed
    /// or removed since the scan): left out of the chunk's inputs, and
    /// out of `origin`'s numbering, so the two stay aligned.
    unreadable: std::sync::Mutex<std::collections::BTreeSet<usize>>,
}

impl GivenCmp {
    /// Comparison `kind` (as [`ObjectCmp::new`] takes it) over `set`.
    pub fn new(kind: ComparisonId, set: Arc<GivenSet>) -> Self {
        Self {
            judge: ObjectCmp::new(kind, 0, 0),
            set,
            unreadable: std::sync::Mutex::new(std::collections::BTreeSet::new()),
        }
    }

    fn failed(&self) -> std::sync::MutexGuard<'_, std::collections::BTreeSet<usize>> {
        self.unreadable.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Comparison for GivenCmp {
    fn id(&self) -> ComparisonId {
        self.judge.id()
    }
    fn applies(&self, target: &Target) -> Result<(), String> {
        if self.set.by_target.contains_key(target.name) {
            Ok(())
        } else {
            Err("no given object for this processor".to_owned())
        }
    }
    fn chunks(&self, target: &Target) -> u64 {
        let n = self.set.by_target.get(target.name).map_or(0, Vec::len) as u64;
        n.div_ceil(PER_CHUNK)
    }
    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        let mut out = Vec::new();
        for &k in self.set.chunk(target, chunk) {
            let Some(o) = self.set.objects.get(k) else {
                continue;
            };
            match self.set.loader.load(o) {
                Ok(bytes) => out.push(Input::File {
                    name: o.file_name(),
                    bytes,
                }),
                Err(why) => {
                    self.failed().insert(k);
                    self.set
                        .unread
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(k, why);
                }
            }
        }
        out
    }
    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        let failed = self.failed();
        self.set
            .chunk(target, chunk)
            .iter()
            .filter(|k| !failed.contains(k))
            .nth(index)
            .and_then(|k| self.set.objects.get(*k))
            .map_or_else(
                || format!("given object {index} of chunk {chunk}"),
                GivenObject::origin,
            )
    }
    fn render(&self, peer: &dyn Peer, target: &Target, input: &Input) -> Result<Input, String> {
        self.judge.render(peer, target, input)
    }
    fn compare(
        &self,
        peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        reference: Option<&View>,
    ) -> Verdict {
        self.judge.compare(peer, target, input, view, reference)
    }
    fn shrink(&self, _input: &Input) -> Vec<Input> {
        // No generator model to edit: a given object is reported whole.
        Vec::new()
    }
}

/// A comparison that does not apply to given objects (`rebuild` and
/// `mutants` start from the generator's source, `smem-*` from instruction
/// words): listed per processor as not applicable, with why.
pub struct Inapplicable {
    id: ComparisonId,
    why: &'static str,
}

impl Inapplicable {
    /// Comparison `id`, not applicable because of `why`.
    pub fn new(id: ComparisonId, why: &'static str) -> Self {
        Self { id, why }
    }
}

impl Comparison for Inapplicable {
    fn id(&self) -> ComparisonId {
        self.id
    }
    fn description(&self) -> &'static str {
        self.why
    }
    fn applies(&self, _target: &Target) -> Result<(), String> {
        Err(format!("not applicable to given objects: {}", self.why))
    }
    fn chunks(&self, _target: &Target) -> u64 {
        0
    }
    fn inputs(&self, _target: &Target, _chunk: u64) -> Vec<Input> {
        Vec::new()
    }
    fn origin(&self, _target: &Target, _chunk: u64, index: usize) -> String {
        format!("input {index}")
    }
    fn compare(
        &self,
        _peer: &dyn Peer,
        _target: &Target,
        _input: &Input,
        _view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        Verdict::NotComparable(self.why.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(path: &str, member: Option<&str>) -> GivenObject {
        GivenObject {
            path: path.into(),
            member: member.map(str::to_owned),
            place: Place::Range { start: 0, end: 1 },
            target: hsaco_oracle::targets::by_name("gfx900").expect("gfx900"),
        }
    }

    #[test]
    fn file_names_are_safe_and_keep_the_member() {
        assert_eq!(obj("/a/b/k.hsaco", None).file_name(), "k.hsaco");
        assert_eq!(obj("/a/lib.so.1", None).file_name(), "lib.so.1.hsaco");
        assert_eq!(
            obj(
                "/a/lib.so",
                Some(".hip_fatbin@0x1000:hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+")
            )
            .file_name(),
            "lib.so@.hip_fatbin@0x1000_hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.hsaco"
        );
        assert_eq!(obj("/x/.hidden.co", None).file_name(), "_.hidden.co");
        assert_eq!(obj("/x/a b'c.co", None).file_name(), "a_b_c.co");
        let long = format!("/x/{}.co", "k".repeat(400));
        assert!(obj(&long, None).file_name().len() <= 187);
    }
}
