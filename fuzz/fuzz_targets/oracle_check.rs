//! Fuzz target `oracle_check`: see `hsaco_fuzz::oracle_check`.
#![cfg_attr(fuzzing, no_main)]

#[global_allocator]
static ALLOC: hsaco_fuzz::alloc::Counting = hsaco_fuzz::alloc::Counting;

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::oracle_check::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("oracle_check", hsaco_fuzz::oracle_check::run)
}
