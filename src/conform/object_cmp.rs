//! Object-level comparisons: whole code objects made by `hsaco_gen` (or
//! given), read by LLVM's programs and comgr, and by the oracle.
//! [`ObjectCmp`] makes the inputs and hands each view to the judge of its
//! comparison; each comparison's judge and each tool have their own module.
//!
//! - `rebuild` ([`super::rebuild`]): the generator's assembler text, assembled by `llvm-mc`
//!   (19, or 14 for code object V3) and linked by `ld.lld -shared`, must
//!   give the generator's loaded image (program headers, allocated
//!   sections) and the same oracle verdict.
//! - `descriptors` ([`super::descriptors`], [`super::objdump`]):
//!   `llvm-objdump -D --disassemble-symbols=K.kd` of a
//!   generated object, directive by directive, against the oracle's decode
//!   of each kernel descriptor (every installed LLVM version that knows
//!   the processor).
//!   The same comparison has a second peer per LLVM version,
//!   `llvm-objdump-NN+llvm-mc-NN` ([`super::reassembly`]): the
//!   `.amdhsa_kernel` blocks llvm-objdump prints, verbatim, under the
//!   object's own `.amdgcn_target` and code object version, are assembled
//!   by llvm-mc of the same version (one run per object) and each `K.kd`
//!   must come back as the object's 64 bytes (the entry offset, which
//!   llvm-objdump does not print, left out). Known LLVM round-trip limits
//!   carry `reassembly:*` tags.
//! - `metadata` ([`super::objects_meta`], [`super::readobj`]): `llvm-readobj --notes` against
//!   the oracle's metadata model, key by key.
//!
//! - `comgr-metadata` ([`super::comgr`]): comgr's metadata tree, ISA name
//!   and symbols against the oracle (every code object version).
//!
//! Inputs are generated valid cases ([`super::cases`]), a function of the
//! seed, the comparison, the processor and the case's index only; each
//! input is an [`Input::File`] whose name encodes all of these
//! (`KIND.CPU.SEED.INDEX.hsaco`), so a case can be made again from its
//! name (`gen --case NAME` writes it).
//!
//! Reduction works on the generator's model, not on bytes: a candidate is
//! the case made again with one more edit ([`super::cases::Edit`]: a kernel dropped, a
//! kernel's code reduced to `s_endpgm`, its argument list emptied, its
//! optional metadata fields reset, the printf list emptied) and emitted
//! again, so every candidate is a well-formed object the generator could
//! have written. The edits are recorded in the name
//! (`KIND.CPU.SEED.INDEX.EDITS.hsaco`, edits joined by `_`), so a
//! reduced object too can be made again from its name.

use hsaco_gen::Generator;
use hsaco_oracle::targets::Target;

use super::cases::{case_name, config, generate, shrink_object, PER_CHUNK};
use super::{Comparison, ComparisonId, Input, Peer, Verdict, View};

/// An object-level comparison (`rebuild`, `descriptors`, `metadata` or
/// `comgr-metadata`) over generated valid cases.
pub struct ObjectCmp {
    kind: ComparisonId,
    seed: u64,
    objects: u64,
    /// Objects given by the caller instead of generated ones.
    given: Option<Vec<Input>>,
}

impl ObjectCmp {
    /// `objects` generated cases per processor for comparison `kind`
    /// (`rebuild`, `descriptors`, `metadata` or `comgr-metadata`; any
    /// other is read as `descriptors`).
    pub fn new(kind: ComparisonId, seed: u64, objects: u64) -> Self {
        let kind = match kind {
            ComparisonId::Rebuild | ComparisonId::Metadata | ComparisonId::ComgrMetadata => kind,
            _ => ComparisonId::Descriptors,
        };
        Self {
            kind,
            seed,
            objects,
            given: None,
        }
    }

    /// Comparison `kind` (as for [`ObjectCmp::new`]; not `rebuild`, which
    /// starts from generated assembler text) on the given objects
    /// (`Input::File`s) instead of generated ones, on every processor of
    /// the plan. Their names need not name generated cases; those that do
    /// not are not reduced.
    pub fn given(kind: ComparisonId, objects: Vec<Input>) -> Self {
        let mut c = Self::new(kind, 0, objects.len() as u64);
        c.given = Some(objects);
        c
    }
}

impl Comparison for ObjectCmp {
    fn id(&self) -> ComparisonId {
        self.kind
    }

    fn applies(&self, _target: &Target) -> Result<(), String> {
        // A processor the generator cannot make yields no inputs.
        Ok(())
    }

    fn chunks(&self, _target: &Target) -> u64 {
        self.objects.div_ceil(PER_CHUNK)
    }

    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        if let Some(g) = &self.given {
            let first = usize::try_from(chunk.saturating_mul(PER_CHUNK)).unwrap_or(usize::MAX);
            return g
                .iter()
                .skip(first)
                .take(PER_CHUNK as usize)
                .cloned()
                .collect();
        }
        let cfg = config(self.kind, target);
        let gen = Generator::new(&cfg);
        let first = chunk.saturating_mul(PER_CHUNK);
        let n = self.objects.saturating_sub(first).min(PER_CHUNK);
        (0..n)
            .filter_map(|i| generate(&gen, self.kind, target, self.seed, chunk, i))
            .map(|c| Input::File {
                name: c.id.clone(),
                bytes: c.elf,
            })
            .collect()
    }

    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        if let Some(g) = &self.given {
            let k = usize::try_from(chunk.saturating_mul(PER_CHUNK))
                .unwrap_or(usize::MAX)
                .saturating_add(index);
            return match g.get(k) {
                Some(Input::File { name, .. }) => format!("given object {name}"),
                _ => format!("given object {k}"),
            };
        }
        format!(
            "generated object {} (seed {})",
            case_name(self.kind, target.name, self.seed, chunk, index as u64),
            self.seed
        )
    }

    fn render(&self, peer: &dyn Peer, _target: &Target, input: &Input) -> Result<Input, String> {
        if self.kind == ComparisonId::Rebuild {
            return super::rebuild::render(peer, input);
        }
        Ok(input.clone())
    }

    fn compare(
        &self,
        peer: &dyn Peer,
        target: &Target,
        input: &Input,
        view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        let (Input::File { bytes, .. }, View::Json { value }) = (input, view) else {
            return Verdict::NotComparable("not an object and a structured view".to_owned());
        };
        let version = peer.info().version.unwrap_or(0);
        match self.kind {
            ComparisonId::Rebuild => super::rebuild::compare_rebuild(bytes, value),
            ComparisonId::Metadata => super::objects_meta::compare(input, view),
            ComparisonId::ComgrMetadata => super::comgr::compare_view(value),
            _ => match value.get("reassembly") {
                Some(r) => super::reassembly::compare_reassembly(target, bytes, r, version),
                None => super::descriptors::compare_descriptors(target, bytes, value, version),
            },
        }
    }

    fn shrink(&self, input: &Input) -> Vec<Input> {
        shrink_object(input)
    }
}
