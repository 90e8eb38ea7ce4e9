//! Library behind the cargo-fuzz targets.
//!
//! This crate is empty until issue 7 builds it; it exists so the workspace
//! layout matches DESIGN.md from the start.
