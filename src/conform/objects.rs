//! Object-level comparisons: whole code objects made by `hsaco_gen`, read
//! by LLVM's programs and comgr, and by the oracle. The comparison over
//! generated (or given) objects is [`super::object_cmp::ObjectCmp`]; each
//! comparison's judge and each tool have their own module.
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
//! Inputs are generated valid cases, a function of the seed, the
//! comparison, the processor, the chunk and the position only; each input
//! is an [`Input::File`] whose name encodes all of these, so a case can be
//! made again from its name.
//!
//! Reduction works on the generator's model, not on bytes: a candidate is
//! the case made again with one more edit ([`Edit`]: a kernel dropped, a
//! kernel's code reduced to `s_endpgm`, its argument list emptied, its
//! optional metadata fields reset, the printf list emptied) and emitted
//! again, so every candidate is a well-formed object the generator could
//! have written. The edits are recorded in the name
//! (`KIND.CPU.SEED.CHUNK.INDEX.EDITS.hsaco`, edits joined by `_`), so a
//! reduced object too can be made again from its name.

use super::ComparisonId;

/// The id's text ([`ComparisonId::Rebuild`]), for code that matches
/// comparison names.
pub const REBUILD: &str = ComparisonId::Rebuild.as_str();
/// The id's text ([`ComparisonId::Descriptors`]), for code that matches
/// comparison names.
pub const DESCRIPTORS: &str = ComparisonId::Descriptors.as_str();
