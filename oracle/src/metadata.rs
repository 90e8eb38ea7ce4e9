//! Module metadata: being written in this change.

crate::declare_rules! {}
