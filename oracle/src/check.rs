//! Module check: being written in this change.
