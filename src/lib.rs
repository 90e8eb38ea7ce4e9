//! `hsaco_conform`: the parts of the `hsaco-conform` command that other
//! programs and the integration tests use: peers (other tools run on the
//! same input as the oracle) and the differential engines that compare
//! them with the oracle, and hardware replay through the HSA runtime.
//!
//! The reference model itself is the `hsaco-oracle` crate.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod args;
pub mod conform;
pub mod files;
pub mod isa_diff;
pub mod measure;
pub mod output;
pub mod peers;
pub mod replay;
pub mod smem_diff;
