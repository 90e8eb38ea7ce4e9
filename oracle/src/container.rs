//! Module container: being written in this change.
