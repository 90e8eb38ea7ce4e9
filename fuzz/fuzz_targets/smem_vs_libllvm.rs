//! Fuzz target `smem_vs_libllvm`: see `hsaco_fuzz::smem_vs_libllvm`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::smem_vs_libllvm::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("smem_vs_libllvm", hsaco_fuzz::smem_vs_libllvm::run)
}
