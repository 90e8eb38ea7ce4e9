//! Fuzz target `libllvm_disasm`: see `hsaco_fuzz::libllvm_disasm`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| hsaco_fuzz::libllvm_disasm::run(data));

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    hsaco_fuzz::replay::main("libllvm_disasm", hsaco_fuzz::libllvm_disasm::run)
}
