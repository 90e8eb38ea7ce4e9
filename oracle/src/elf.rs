//! Module elf: being written in this change.

crate::declare_rules! {}
