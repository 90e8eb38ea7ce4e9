//! The rule catalogue: every check the oracle makes, with a stable id.
//!
//! Each module that checks something declares its rules with
//! [`declare_rules!`](crate::declare_rules), which makes one `pub static` per
//! rule and a `RULES` slice; [`catalogue`] chains those slices. The id's
//! first segment names the concept (`elf`, `note`, `metadata`, `symbol`,
//! `kd`, `code`, `sgpr`, `smem`, `reloc`), so the catalogue doubles as the
//! coverage unit for generators and the conformance suite.

use serde::Serialize;
use std::fmt;

/// How bad a violation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something a reader should know but that breaks no rule (for example a
    /// vendor-specific metadata key).
    Info,
    /// Allowed by the ABI but suspicious, or rejected only by some tools.
    Warning,
    /// The ABI is broken: a conforming loader may reject or misrun the object.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One rule of the ABI as the oracle checks it.
#[derive(Debug, Serialize)]
pub struct Rule {
    /// Stable dotted id, e.g. `kd.rsrc1.reserved`. Part of the user contract.
    pub id: &'static str,
    /// Severity of a violation of this rule.
    pub severity: Severity,
    /// One-line statement of what must hold.
    pub statement: &'static str,
    /// Where the rule comes from: document and section, or `NOTES.md`, or
    /// the LLVM source file that was checked.
    pub reference: &'static str,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Rule {}

/// Declares a module's rules: one `pub static NAME: Rule` each, and
/// `pub static RULES: &[&Rule]` listing them in declaration order.
#[macro_export]
macro_rules! declare_rules {
    ($( $(#[$m:meta])* $name:ident = ($sev:ident, $id:literal, $stmt:literal, $refr:literal); )*) => {
        $(
            $(#[$m])*
            #[doc = concat!("Rule `", $id, "`: ", $stmt)]
            pub static $name: $crate::rules::Rule = $crate::rules::Rule {
                id: $id,
                severity: $crate::rules::Severity::$sev,
                statement: $stmt,
                reference: $refr,
            };
        )*
        /// The rules this module declares, in declaration order.
        pub static RULES: &[&$crate::rules::Rule] = &[$(&$name),*];
    };
}

/// Every rule the oracle knows, grouped by module in a fixed order.
pub fn catalogue() -> impl Iterator<Item = &'static Rule> {
    [
        crate::elf::RULES,
        crate::notes::RULES,
        crate::metadata::RULES,
        crate::metadata_v2::RULES,
        crate::symbols::RULES,
        crate::kd::RULES,
        crate::kernel_code::RULES,
        crate::check::RULES,
        crate::sgpr::RULES,
        crate::sgpr::v2::RULES,
        crate::smem::RULES,
        crate::smem::exec::RULES,
    ]
    .into_iter()
    .flat_map(|s| s.iter().copied())
}

/// Looks a rule up by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    catalogue().find(|r| r.id == id)
}

/// One broken rule, found at one place.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    /// The rule that is broken.
    #[serde(serialize_with = "ser_rule_id")]
    pub rule: &'static Rule,
    /// Copy of the rule's severity, so JSON readers need no catalogue.
    pub severity: Severity,
    /// What was found versus what was expected, for a person.
    pub message: String,
    /// File offset (within the code object) of the offending bytes, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The kernel the violation concerns, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

fn ser_rule_id<S: serde::Serializer>(r: &&'static Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(r.id)
}

/// Collects violations while a check runs; `kernel` is the current context.
#[derive(Debug, Default)]
pub struct Sink {
    /// Violations in the order they were found.
    pub violations: Vec<Violation>,
    kernel: Option<String>,
}

/// Upper bound on violations kept per object, so a garbage file with
/// millions of bad entries cannot exhaust memory.
pub const MAX_VIOLATIONS: usize = 1000;

impl Sink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or clears) the kernel that following violations concern.
    pub fn set_kernel(&mut self, kernel: Option<&str>) {
        // Checks set and clear the kernel around every kernel; reuse the
        // buffer rather than allocate each time.
        match (kernel, &mut self.kernel) {
            (Some(k), Some(cur)) => {
                if cur != k {
                    cur.clear();
                    cur.push_str(k);
                }
            }
            (k, cur) => *cur = k.map(str::to_owned),
        }
    }

    /// Records a violation of `rule` with no file offset.
    pub fn report(&mut self, rule: &'static Rule, message: impl Into<String>) {
        self.push(rule, None, message.into());
    }

    /// Records a violation of `rule` at file offset `offset`.
    pub fn report_at(&mut self, rule: &'static Rule, offset: u64, message: impl Into<String>) {
        self.push(rule, Some(offset), message.into());
    }

    fn push(&mut self, rule: &'static Rule, offset: Option<u64>, message: String) {
        if self.violations.len() >= MAX_VIOLATIONS {
            return;
        }
        self.violations.push(Violation {
            rule,
            severity: rule.severity,
            message,
            offset,
            kernel: self.kernel.clone(),
        });
    }

    /// True if any violation of error severity was recorded.
    pub fn has_errors(&self) -> bool {
        self.violations
            .iter()
            .any(|v| v.severity == Severity::Error)
    }

    /// True if `rule` was reported.
    pub fn has(&self, rule: &Rule) -> bool {
        self.violations.iter().any(|v| v.rule == rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            let first = r.id.split('.').next().unwrap();
            assert!(
                ["elf", "note", "metadata", "symbol", "kd", "code", "sgpr", "smem", "reloc"]
                    .contains(&first),
                "rule {} has unknown first segment",
                r.id
            );
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_'),
                "rule id {} has characters outside [a-z0-9._]",
                r.id
            );
            assert!(
                !r.statement.is_empty() && !r.reference.is_empty(),
                "{}",
                r.id
            );
        }
    }
}
