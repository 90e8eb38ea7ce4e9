//! Fuzz target `gen_check`: see `hsaco_fuzz::gen_check`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::gen_check::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("gen_check", hsaco_fuzz::gen_check::run)
}
