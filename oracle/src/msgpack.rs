//! Module msgpack: being written in this change.
