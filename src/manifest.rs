//! `manifest.jsonl`, the index of a folder of generated cases: what `gen`
//! writes and `coverage` reads, defined once.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// One line of `manifest.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// `SEED-INDEX` (index zero-padded to six digits).
    pub id: String,
    /// The run's seed.
    pub seed: u64,
    /// The case's index in the run.
    pub index: u64,
    /// `valid`, `sgpr-suite`, `smem` or `mutant`.
    pub kind: String,
    /// Target ID, V4+ spelling without the triple (`gfx90a:xnack+`).
    pub target: String,
    /// Code object version (2 to 6).
    pub code_object_version: u8,
    /// `valid`, or the rule id a mutant must break.
    pub expect: String,
    /// The ELF file, relative to the output directory.
    pub elf: String,
    /// The assembler text, relative to the output directory, when the case
    /// has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asm: Option<String>,
    /// SHA-256 of the ELF file, lowercase hex.
    pub sha256: String,
    /// sgpr-suite: the suite entry, `sgpr-FAMILY-POSITION`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_entry: Option<String>,
    /// mutant: what the mutation changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<String>,
    /// smem: how many SMEM instructions the case's kernels run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smem_instructions: Option<u64>,
    /// sgpr-suite (not its mutants): the enable bits of the entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sgpr_enables: Option<serde_json::Value>,
    /// sgpr-suite (not its mutants): the initial register state the oracle
    /// predicts for the kernel (user and system SGPR runs, work-item ID
    /// VGPRs, wave size), what hardware must set up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<serde_json::Value>,
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        let _ = write!(s, "{b:02x}");
    }
    s
}
