//! Module notes: being written in this change.

crate::declare_rules! {}
