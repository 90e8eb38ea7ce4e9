//! Mutators for the `smem.*` rules: a valid case whose kernel code is an
//! SMEM stream, changed so that one instruction word or the stream breaks
//! one rule.

use super::Mutator;

/// The SMEM mutators.
pub(super) static MUTATORS: &[Mutator] = &[];

/// SMEM rules no mutation of a generated object breaks, with the reason.
pub(super) static UNMUTABLE: &[(&str, &str)] = &[
    ("smem.encoding", SMEM),
    ("smem.opcode", SMEM),
    ("smem.sdata.class", SMEM),
    ("smem.sdata.immediate", SMEM),
    ("smem.sbase.class", SMEM),
    ("smem.imm_without_offset", SMEM),
    ("smem.cpol.unsupported", SMEM),
    ("smem.offset.null", SMEM),
    ("smem.offset.buffer_negative", SMEM),
    ("smem.noncanonical", SMEM),
    ("smem.lgkm.read_before_wait", SMEM),
    ("smem.lgkm.write_before_wait", SMEM),
    ("smem.gfx8.store_offset_register", SMEM),
    ("smem.buffer.resource_hazard", SMEM),
    ("smem.offset.negative", SMEM),
    ("smem.xnack.clause_overlap", SMEM),
    ("smem.discard.dirty", SMEM),
    ("smem.address.unaligned", SMEM),
    ("smem.buffer.stride", SMEM),
    ("smem.exec.invalid_instruction", SMEM),
];

/// Reason for an SMEM rule in [`UNMUTABLE`].
const SMEM: &str = "judges SMEM instruction words and streams (the oracle's smem decoder and executor), which the object check never runs on a kernel's code; a stream-level mutator would need its own API";
