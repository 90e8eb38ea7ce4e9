//! Mutators for code object V2 rules (`note.v2.*`, `metadata.v2.*`,
//! `symbol.v2.*`, `code.*`, V2-only `sgpr.*`), on the V2 cases of
//! [`crate::v2`].
//!
//! Where the model expresses the break (a metadata value, a segment size,
//! an enable, a printf string) the mutator changes the [`CodeObject`] and
//! re-emits it, so the assembler text still describes the mutant
//! ([`MutantAsm::Rebuilds`]). Below the model it edits the
//! [`Image`] (the notes, an `amd_kernel_code_t`, the placement of a
//! kernel, `e_flags`, the symbol table) or the metadata's [`Yaml`] tree,
//! and writes the image with the V2 writer, so the layout stays lld's.
//!
//! Every mutator returns `None` on a case that is not V2.
//!
//! One module per rule area, in catalogue order ([`AREAS`]); the helpers
//! they share (editing the image, the YAML document, an
//! `amd_kernel_code_t`, the model) are here.

use super::{
    any_kernel, int, int_except, kernel_where, non_pow2, patch_case, pick, remodel, word, Ctx,
    MutantAsm, Mutator, Out, R,
};
use crate::emit::v2::{idx, Image, Note};
use crate::metadata::{AddressSpace, ArgSpec, KernelMeta};
use crate::object::{CodeObject, Kernel};
use crate::v2::{self as model, Yaml};
use arbitrary::Unstructured;
use hsaco_oracle as oracle;
use hsaco_oracle::kernel_code::{self as kc, props, KernelCode};
use hsaco_oracle::layout::{self as l, BitField, Word};
use hsaco_oracle::metadata::ValueKind;
use hsaco_oracle::notes::{
    NT_AMD_HSA_CODE_OBJECT_VERSION, NT_AMD_HSA_HSAIL, NT_AMD_HSA_ISA_NAME, NT_AMD_HSA_ISA_VERSION,
    NT_AMD_HSA_METADATA, NT_AMD_PAL_METADATA,
};
use hsaco_oracle::rules::Rule;
use hsaco_oracle::targets::{self, CodeObjectVersion};

/// True if `rule` is one of this module's (V2-only) rules: V2 cases take
/// only these mutators, and these mutators only V2 cases.
pub(super) fn owns(rule: &Rule) -> bool {
    AREAS.iter().flat_map(|a| a.iter()).any(|m| m.rule == rule)
}

// ---------------------------------------------------------------------------
// Helpers.

fn v2(c: &Ctx<'_>) -> bool {
    c.cov == CodeObjectVersion::V2
}

/// The case's image, edited by `f` (`None` from `f`: not applicable).
fn image(c: &Ctx<'_>, f: impl FnOnce(&mut Image) -> Option<()>) -> Option<Out> {
    if !v2(c) {
        return None;
    }
    let mut img = Image::from_object(c.co);
    f(&mut img)?;
    Some(Out {
        object: c.co.clone(),
        elf: img.write(),
    })
}

/// The case with its metadata document edited by `f`.
fn yaml(c: &Ctx<'_>, f: impl FnOnce(&mut Yaml) -> Option<()>) -> Option<Out> {
    image(c, |img| {
        let mut doc = model::metadata_doc(c.co);
        f(&mut doc)?;
        img.note_mut(NT_AMD_HSA_METADATA)?.desc = doc.to_text().into_bytes();
        Some(())
    })
}

/// The case with the `amd_kernel_code_t` of kernel `i` edited by `f`.
fn code(c: &Ctx<'_>, i: usize, f: impl FnOnce(&mut KernelCode) -> Option<()>) -> Option<Out> {
    image(c, |img| f(&mut img.kernels.get_mut(i)?.header))
}

/// The model changed by `f` and re-emitted.
fn model_edit(c: &Ctx<'_>, f: impl FnOnce(&mut CodeObject) -> Option<()>) -> Option<Out> {
    if !v2(c) {
        return None;
    }
    let mut co = c.co.clone();
    f(&mut co)?;
    Some(remodel(co))
}

/// Kernel `i`'s metadata changed by `f` and re-emitted.
fn meta_edit(c: &Ctx<'_>, i: usize, f: impl FnOnce(&mut KernelMeta) -> Option<()>) -> Option<Out> {
    model_edit(c, |co| f(&mut co.kernels.get_mut(i)?.metadata))
}

fn kernels(doc: &mut Yaml) -> Option<&mut Vec<Yaml>> {
    doc.get_mut("Kernels")?.seq_mut()
}

fn kernel(doc: &mut Yaml, i: usize) -> Option<&mut Yaml> {
    kernels(doc)?.get_mut(i)
}

fn code_props(doc: &mut Yaml, i: usize) -> Option<&mut Yaml> {
    kernel(doc, i)?.get_mut("CodeProps")
}

fn arg(doc: &mut Yaml, i: usize, j: usize) -> Option<&mut Yaml> {
    kernel(doc, i)?.get_mut("Args")?.seq_mut()?.get_mut(j)
}

/// A drawn (kernel, argument) pair whose argument satisfies `pred`.
fn arg_where(
    co: &CodeObject,
    u: &mut Unstructured<'_>,
    pred: impl Fn(&Kernel, usize, &ArgSpec) -> bool,
) -> arbitrary::Result<Option<(usize, usize)>> {
    let mut all = Vec::new();
    for (i, k) in co.kernels.iter().enumerate() {
        for (j, a) in k.metadata.args.iter().enumerate() {
            if pred(k, j, a) {
                all.push((i, j));
            }
        }
    }
    if all.is_empty() {
        return Ok(None);
    }
    Ok(Some(pick(u, &all)?))
}

/// Index of the last explicit (non-hidden) argument of `k`.
fn last_explicit(k: &Kernel) -> Option<usize> {
    k.metadata.args.iter().rposition(|a| !a.kind.is_hidden())
}

/// The kernel's V2 kernel code, as the case has it.
fn header(c: &Ctx<'_>, i: usize) -> KernelCode {
    model::kernel_code(&c.co.target, &c.co.kernels[i])
}

/// A byte-level `amd_kernel_code_t` change of a drawn kernel.
fn code_any(
    c: &Ctx<'_>,
    u: &mut Unstructured<'_>,
    f: impl FnOnce(&mut Unstructured<'_>, &mut KernelCode) -> arbitrary::Result<Option<()>>,
) -> R {
    if !v2(c) {
        return Ok(None);
    }
    let i = any_kernel(c.co, u)?;
    let mut h = header(c, i);
    if f(u, &mut h)?.is_none() {
        return Ok(None);
    }
    Ok(code(c, i, |k| {
        *k = h;
        Some(())
    }))
}

/// The `amd_kernel_code_t` word that holds the descriptor's word `w`:
/// compute_pgm_rsrc1 and 2 are the same registers (the layout's fields
/// describe both), code_properties the V2 ancestor of
/// kernel_code_properties (bits 0-10 alike).
fn code_word(h: &mut KernelCode, w: Word) -> Option<&mut u32> {
    match w {
        Word::Rsrc1 => Some(&mut h.compute_pgm_rsrc1),
        Word::Rsrc2 => Some(&mut h.compute_pgm_rsrc2),
        Word::Properties => Some(&mut h.code_properties),
        Word::Rsrc3 | Word::KernargPreload => None,
    }
}

/// `h` with field `f` (of compute_pgm_rsrc1 or 2) set to `v`.
fn set_code_field(h: &mut KernelCode, f: &BitField, v: u32) -> Option<()> {
    let w = code_word(h, f.word)?;
    *w = f.set(*w, v);
    Some(())
}

/// Sets one of `bits` (drawn) of word `w` (see [`code_word`]) of a drawn
/// kernel.
fn code_bit(c: &Ctx<'_>, u: &mut Unstructured<'_>, w: Word, bits: &[u32]) -> R {
    if bits.is_empty() {
        return Ok(None);
    }
    let b = pick(u, bits)?;
    code_any(c, u, |_, h| Ok(code_word(h, w).map(|word| *word |= 1 << b)))
}

/// Sets the one-bit field `f` of a drawn kernel.
fn code_flag(c: &Ctx<'_>, u: &mut Unstructured<'_>, f: &BitField) -> R {
    code_any(c, u, |_, h| Ok(set_code_field(h, f, 1)))
}

/// The set bits of `mask`, lowest first.
fn bits_of(mask: u32) -> Vec<u32> {
    (0..32).filter(|b| mask >> b & 1 != 0).collect()
}

/// An ISA version no V2 object for `c`'s target carries.
fn other_isa(c: &Ctx<'_>, u: &mut Unstructured<'_>) -> arbitrary::Result<[u32; 3]> {
    let own = model::isa_version(&c.co.target);
    let mut v = own;
    let slot = int(u, 0usize, 2)?;
    v[slot] = int_except(u, 0, 12, &[u64::from(own[slot])])? as u32;
    Ok(v)
}

mod code_metadata;
mod kernel_code;
mod metadata;
mod notes;
mod sgpr;
mod symbols;

/// The V2 mutators, area by area in catalogue order.
pub(super) static AREAS: [&[Mutator]; 6] = [
    notes::MUTATORS,
    metadata::MUTATORS,
    symbols::MUTATORS,
    kernel_code::MUTATORS,
    code_metadata::MUTATORS,
    sgpr::MUTATORS,
];

/// V2 rules no mutation of a generated object breaks, with the reason
/// (none: every V2 rule has a mutator).
pub(super) static UNMUTABLE: &[(&Rule, &str)] = &[];
