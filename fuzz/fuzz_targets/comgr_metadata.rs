//! Fuzz target `comgr_metadata`: see `hsaco_fuzz::comgr_metadata`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::comgr_metadata::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("comgr_metadata", hsaco_fuzz::comgr_metadata::run)
}
