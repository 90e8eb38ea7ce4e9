//! `hsaco-oracle`: a reference model of the AMDGPU HSA code object ABI.
//!
//! It decodes any bytes into typed models of the ELF container, notes,
//! metadata, kernel descriptors and initial register state, and reports,
//! rule by rule, what is wrong. It never runs external tools and never
//! panics on any input; sizes and counts read from a file are checked
//! against the file before use.
//!
//! Start at [`check::check_object`] for one code object, or at
//! [`container::scan`] for files that may hold several (offload bundles,
//! compressed or not, and host binaries with a `.hip_fatbin` section or
//! code objects embedded in their data).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod rules;

pub mod ccob;
pub mod check;
pub mod container;
pub mod dispatch;
pub mod elf;
mod fasthash;
pub mod hex;
pub mod isa;
pub mod kd;
pub mod kernel_code;
pub mod layout;
pub mod metadata;
pub mod metadata_v2;
pub mod msgpack;
pub mod notes;
pub mod probe;
pub mod sgpr;
pub mod smem;
pub mod symbols;
pub mod targets;
pub mod uri;
pub mod wave;
pub mod yaml;

pub use rules::{Rule, Severity, Sink, Violation};
