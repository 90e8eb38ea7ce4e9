//! Generators of AMDGPU code object test cases.
//!
//! This crate is empty until issue 5 builds it; it exists so the workspace
//! layout matches DESIGN.md from the start.
