//! The instruction layer: machine code of every encoding family, decoded
//! from data.
//!
//! Encodings are bit-field rows ([`encoding`]); opcodes are rows per
//! family with the processors that have them ([`table`], data in
//! `rows/`); operands decode and print by their type ([`operand`]).
//! [`decode`] gives, for the bytes at an address, the instruction's
//! length, family, opcode row, operands (registers with file, first and
//! count, read or written; constants; literals), a verdict, and its text
//! as LLVM 22 prints it. There is no code per opcode.
//!
//! Sources: the AMD ISA reference guides (GCN3, Vega, CDNA, RDNA 1-4:
//! "Microcode Formats", the operand tables); amdgpu-usage.rst; LLVM's
//! `llvm/lib/Target/AMDGPU/*Instructions.td` and `AMDGPUDisassembler.cpp`
//! for what LLVM accepts and prints. Every row is checked against
//! libLLVM 19 and 22 in process (`tests/isa_libllvm.rs`).

pub mod decode;
pub mod encoding;
pub mod gen;
pub mod operand;
pub mod print;
pub mod rows;
pub mod simm;
pub mod table;

pub use decode::{decode, Decoded, Decoder, Insn, Invalid, Verdict};
pub use gen::IsaGen;
pub use operand::{File, OpType, Operand};
pub use simm::Dialect;
pub use table::{Access, Family, Field, Kind, Llvm, Row, Slot};

#[cfg(test)]
mod tests;
