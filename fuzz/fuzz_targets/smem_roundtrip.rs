//! Fuzz target `smem_roundtrip`: see `hsaco_fuzz::smem_roundtrip`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::smem_roundtrip::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("smem_roundtrip", hsaco_fuzz::smem_roundtrip::run)
}
