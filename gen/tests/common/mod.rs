//! What the generator's integration tests share.

/// The byte stream of a seed for these tests: the seed scheme's stream
/// (`hsaco_gen::seed`) of the domain `test`, the same bytes on every
/// machine, for the `Unstructured` a test draws cases from.
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    hsaco_gen::seed::bytes(seed, "test", 0, len)
}
