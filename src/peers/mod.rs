//! Peers: other tools that read the same bytes as the oracle, run so that
//! their view can be compared with the oracle's.
//!
//! Each comparison has three outcomes (see DESIGN.md): the same, different,
//! or not comparable (the peer does not support the target, or is not
//! installed). Peers are discovered at run time, never assumed.

#[allow(unsafe_code)]
pub mod comgr;
pub mod compare_meta;
#[allow(unsafe_code)]
pub mod discover;
#[allow(unsafe_code)]
pub mod library;
#[allow(unsafe_code)]
pub mod llvm_disasm;
