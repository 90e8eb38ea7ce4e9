//! The rule catalogue: every check the oracle makes, with a stable id.
//!
//! Each module that checks something declares its rules with
//! [`declare_rules!`](crate::declare_rules), which makes one `pub static` per
//! rule and a `RULES` slice; [`catalogue`] chains those slices. The id's
//! first segment names the concept (`elf`, `note`, `metadata`, `symbol`,
//! `kd`, `code`, `sgpr`, `smem`, `reloc`, and `dispatch` for the kernel
//! dispatch packet), so the catalogue doubles as the coverage unit for
//! generators and the conformance suite.

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
        crate::dispatch::RULES,
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

/// Info findings of one rule kept per object; the rest are counted in
/// [`Sink::omitted`]. Large GFX10+ libraries give one info finding per
/// kernel (thousands per object), which would drown the few findings that
/// matter; a hundred examples say as much.
pub const MAX_INFOS_PER_RULE: usize = 100;

/// Bytes the kept findings of one object may take per byte of the object
/// (plus [`KEPT_BYTES_BASE`]). Errors and warnings are not capped by
/// number: each one is tied to bytes of the input. But one byte can carry
/// several (a one-byte `{}` metadata argument misses three required keys)
/// and a finding costs a hundred bytes or more, so on hostile input the
/// kept findings are bounded by the input's size; the rest are counted
/// (and the count reported) like capped info findings. Real code objects
/// never come near it: their findings take a few bytes per kilobyte.
pub const KEPT_BYTES_PER_INPUT_BYTE: usize = 4;
/// Fixed part of the kept-findings bound (see [`KEPT_BYTES_PER_INPUT_BYTE`]).
pub const KEPT_BYTES_BASE: usize = 256 << 10;
/// Past the bound, the first finding of a rule with none kept yet is still
/// kept if it takes at most this many bytes, so every broken rule keeps an
/// example (the catalogue's size bounds what this adds).
pub const FIRST_OF_RULE_BYTES: usize = 1024;

/// Findings of one rule that a [`Sink`] counted but did not keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Omitted {
    /// The rule.
    #[serde(serialize_with = "ser_rule_id")]
    pub rule: &'static Rule,
    /// Copy of the rule's severity.
    pub severity: Severity,
    /// Findings counted but not kept.
    pub count: usize,
}

/// Collects violations while a check runs; `kernel` is the current context.
#[derive(Debug)]
pub struct Sink {
    /// Violations in the order they were found: every one, except info
    /// findings past [`MAX_INFOS_PER_RULE`] per rule and findings past the
    /// kept-bytes bound (see [`KEPT_BYTES_PER_INPUT_BYTE`]), which are
    /// counted in [`Sink::omitted`].
    pub violations: Vec<Violation>,
    /// The current kernel's name, if `has_kernel`: the buffer outlives
    /// clearing, since checks set and clear the kernel around every one.
    kernel: String,
    has_kernel: bool,
    /// Findings kept so far, per rule (few rules fire on one object, so a
    /// list beats a map).
    kept: Vec<(&'static Rule, usize)>,
    omitted: Vec<Omitted>,
    /// Bytes the kept findings take, and the most they may.
    kept_bytes: usize,
    max_kept_bytes: usize,
}

impl Default for Sink {
    fn default() -> Self {
        Self::with_bound(usize::MAX)
    }
}

impl Sink {
    /// An empty sink that keeps every error and warning (info findings are
    /// still capped per rule).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty sink for checking an input of `len` bytes: kept findings
    /// are bounded by the input's size (see [`KEPT_BYTES_PER_INPUT_BYTE`]).
    pub fn for_input(len: usize) -> Self {
        Self::with_bound(
            len.saturating_mul(KEPT_BYTES_PER_INPUT_BYTE)
                .saturating_add(KEPT_BYTES_BASE),
        )
    }

    fn with_bound(max_kept_bytes: usize) -> Self {
        Self {
            violations: Vec::new(),
            kernel: String::new(),
            has_kernel: false,
            kept: Vec::new(),
            omitted: Vec::new(),
            kept_bytes: 0,
            max_kept_bytes,
        }
    }

    /// Sets (or clears) the kernel that following violations concern.
    pub fn set_kernel(&mut self, kernel: Option<&str>) {
        // Checks set and clear the kernel around every kernel; reuse the
        // buffer rather than allocate each time.
        match kernel {
            Some(k) => {
                if self.kernel != k {
                    self.kernel.clear();
                    self.kernel.push_str(k);
                }
                self.has_kernel = true;
            }
            None => self.has_kernel = false,
        }
    }

    /// Records a violation of `rule` with no file offset.
    pub fn report(&mut self, rule: &'static Rule, message: impl Into<String>) {
        self.push(rule, None, || message.into());
    }

    /// Records a violation of `rule` at file offset `offset`.
    pub fn report_at(&mut self, rule: &'static Rule, offset: u64, message: impl Into<String>) {
        self.push(rule, Some(offset), || message.into());
    }

    /// Records a violation whose message is made only if the finding is
    /// kept: for info rules that fire on every kernel or argument of a
    /// library, where formatting messages past [`MAX_INFOS_PER_RULE`] was
    /// a third of `check`'s time.
    pub fn report_lazy(
        &mut self,
        rule: &'static Rule,
        offset: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        self.push(rule, offset, message);
    }

    fn push(&mut self, rule: &'static Rule, offset: Option<u64>, message: impl FnOnce() -> String) {
        let i = match self.kept.iter().position(|(r, _)| std::ptr::eq(*r, rule)) {
            Some(i) => i,
            None => {
                self.kept.push((rule, 0));
                self.kept.len() - 1
            }
        };
        let kept = self.kept[i].1;
        if rule.severity == Severity::Info && kept >= MAX_INFOS_PER_RULE {
            return self.omit(rule);
        }
        let message = message();
        // What the finding holds on the heap, and its share of the vector.
        let size = std::mem::size_of::<Violation>()
            + message.capacity()
            + if self.has_kernel {
                self.kernel.len()
            } else {
                0
            };
        let within = self.kept_bytes.saturating_add(size) <= self.max_kept_bytes;
        let first_of_rule = kept == 0 && size <= FIRST_OF_RULE_BYTES;
        if !(within || first_of_rule) {
            return self.omit(rule);
        }
        self.kept[i].1 += 1;
        self.kept_bytes = self.kept_bytes.saturating_add(size);
        self.violations.push(Violation {
            rule,
            severity: rule.severity,
            message,
            offset,
            kernel: self.has_kernel.then(|| self.kernel.clone()),
        });
    }

    /// Counts a finding that is not kept.
    fn omit(&mut self, rule: &'static Rule) {
        match self.omitted.iter_mut().find(|o| std::ptr::eq(o.rule, rule)) {
            Some(o) => o.count += 1,
            None => self.omitted.push(Omitted {
                rule,
                severity: rule.severity,
                count: 1,
            }),
        }
    }

    /// Findings counted but not kept, per rule, in the order each rule
    /// first went over its cap.
    pub fn omitted(&self) -> &[Omitted] {
        &self.omitted
    }

    /// The kept violations and the omitted counts.
    pub fn into_parts(self) -> (Vec<Violation>, Vec<Omitted>) {
        (self.violations, self.omitted)
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

    static ERR: Rule = Rule {
        id: "kd.test.error",
        severity: Severity::Error,
        statement: "s",
        reference: "r",
    };
    static WARN: Rule = Rule {
        id: "kd.test.warning",
        severity: Severity::Warning,
        statement: "s",
        reference: "r",
    };
    static INFO_A: Rule = Rule {
        id: "kd.test.info_a",
        severity: Severity::Info,
        statement: "s",
        reference: "r",
    };
    static INFO_B: Rule = Rule {
        id: "kd.test.info_b",
        severity: Severity::Info,
        statement: "s",
        reference: "r",
    };

    #[test]
    fn errors_and_warnings_are_never_capped_and_infos_are_counted() {
        let mut sink = Sink::new();
        let n = 3 * MAX_INFOS_PER_RULE + 7;
        for i in 0..n {
            sink.set_kernel(Some(&format!("k{i}")));
            sink.report(&INFO_A, "a");
            sink.report_at(&ERR, i as u64, "e");
            if i % 2 == 0 {
                sink.report(&INFO_B, "b");
                sink.report(&WARN, "w");
            }
        }
        let count = |r: &Rule| sink.violations.iter().filter(|v| v.rule == r).count();
        assert_eq!(count(&ERR), n);
        assert_eq!(count(&WARN), n.div_ceil(2));
        assert_eq!(count(&INFO_A), MAX_INFOS_PER_RULE);
        assert_eq!(count(&INFO_B), MAX_INFOS_PER_RULE);
        // The last error is the last kernel's, whatever came before it.
        let last = sink.violations.iter().rfind(|v| v.rule == &ERR).unwrap();
        assert_eq!(last.kernel.as_deref(), Some(format!("k{}", n - 1).as_str()));
        assert_eq!(last.offset, Some(n as u64 - 1));
        let (_, omitted) = sink.into_parts();
        assert_eq!(
            omitted,
            vec![
                Omitted {
                    rule: &INFO_A,
                    severity: Severity::Info,
                    count: n - MAX_INFOS_PER_RULE,
                },
                Omitted {
                    rule: &INFO_B,
                    severity: Severity::Info,
                    count: n.div_ceil(2) - MAX_INFOS_PER_RULE,
                },
            ]
        );
    }

    #[test]
    fn past_the_size_bound_findings_are_counted_and_each_rule_keeps_one() {
        let mut sink = Sink::for_input(0);
        let mut n = 0;
        while sink.omitted().is_empty() {
            sink.report(&ERR, "e");
            n += 1;
        }
        let kept = n - 1;
        assert!(kept * std::mem::size_of::<Violation>() <= KEPT_BYTES_BASE);
        assert!(n * (std::mem::size_of::<Violation>() + 1) > KEPT_BYTES_BASE);
        for _ in 0..10 {
            sink.report(&ERR, "e");
        }
        // A rule with nothing kept yet keeps its first finding, no more.
        sink.report(&WARN, "w");
        sink.report(&WARN, "w");
        // Long findings of a new rule are only counted.
        sink.report(&INFO_A, "a".repeat(2 * FIRST_OF_RULE_BYTES));
        let count = |r: &Rule| sink.violations.iter().filter(|v| v.rule == r).count();
        assert_eq!(count(&ERR), kept);
        assert_eq!(count(&WARN), 1);
        assert_eq!(count(&INFO_A), 0);
        let omitted: Vec<(&str, Severity, usize)> = sink
            .omitted()
            .iter()
            .map(|o| (o.rule.id, o.severity, o.count))
            .collect();
        assert_eq!(
            omitted,
            [
                ("kd.test.error", Severity::Error, 11),
                ("kd.test.warning", Severity::Warning, 1),
                ("kd.test.info_a", Severity::Info, 1)
            ]
        );
    }

    #[test]
    fn lazy_messages_are_made_only_for_kept_findings() {
        let mut sink = Sink::new();
        let mut made = 0;
        for i in 0..3 * MAX_INFOS_PER_RULE {
            sink.report_lazy(&INFO_A, Some(i as u64), || {
                made += 1;
                format!("a{i}")
            });
        }
        assert_eq!(made, MAX_INFOS_PER_RULE);
        assert_eq!(sink.violations.len(), MAX_INFOS_PER_RULE);
        assert_eq!(sink.violations[7].message, "a7");
        assert_eq!(sink.violations[7].offset, Some(7));
        assert_eq!(sink.omitted()[0].count, 2 * MAX_INFOS_PER_RULE);
    }

    #[test]
    fn nothing_is_omitted_under_the_cap() {
        let mut sink = Sink::new();
        for _ in 0..MAX_INFOS_PER_RULE {
            sink.report(&INFO_A, "a");
        }
        assert!(sink.omitted().is_empty());
        sink.report(&INFO_A, "a");
        assert_eq!(sink.omitted()[0].count, 1);
    }

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for r in catalogue() {
            assert!(seen.insert(r.id), "duplicate rule id {}", r.id);
            let first = r.id.split('.').next().unwrap();
            assert!(
                [
                    "elf", "note", "metadata", "symbol", "kd", "code", "sgpr", "smem", "reloc",
                    "dispatch"
                ]
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
