//! Module uri: being written in this change.
