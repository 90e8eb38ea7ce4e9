//! The `mutants` comparison: single-rule mutants of generated objects
//! (`hsaco_gen::mutate`), each breaking one error rule of the oracle, given
//! to the peers that read objects (`llvm-readobj --notes`, `llvm-objdump`
//! on the descriptors, comgr). A peer that reads a mutant without
//! complaint (no error, no warning, nothing refused) is not wrong by
//! itself, but vendors want to know which invalid objects their tools let
//! through: that is an *informational* difference ("peer X accepts
//! objects breaking rule R"), deduplicated by peer, version and rule, and
//! listed apart from the new findings; it never changes the exit status.
//! A peer that complains agrees with the oracle (same). A peer that
//! crashes or hangs on a mutant is an ordinary finding.
//!
//! Each peer only sees the mutants of the rules about what it reads (by
//! rule id prefix: [`reads`]); the others count as not comparable without
//! running the tool.
//!
//! Input names: `mutants.CPU.SEED.INDEX@RULE.hsaco` (the mutant is made
//! again from the seed domain `mutants.CPU`, the seed and the index, see
//! [`super::cases`]; the rule names what it breaks).

use hsaco_oracle::targets::Target;
use serde_json::Value;

use super::{Comparison, ComparisonId, Difference, Input, Peer, Verdict, View};

use super::cases::PER_CHUNK;
pub use super::cases::{mutant, mutant_name, reads};

/// The rule a mutant's name says it breaks.
pub fn rule_of(name: &str) -> Option<&str> {
    name.strip_suffix(".hsaco")?.split_once('@').map(|x| x.1)
}

/// The `mutants` comparison.
pub struct MutantsCmp {
    seed: u64,
    objects: u64,
}

impl MutantsCmp {
    /// `objects` mutants per processor.
    pub fn new(seed: u64, objects: u64) -> Self {
        Self { seed, objects }
    }
}

/// What the peer complained about, from its view of a mutant; `None` when
/// it read the object without complaint.
pub fn complaint(family: &str, value: &Value) -> Option<String> {
    if family == "comgr" {
        return super::comgr::complaint(value);
    }
    // llvm-readobj and llvm-objdump: their exit status, their standard
    // error, and what they print in place of what they could not read.
    if value.get("ok").and_then(Value::as_bool) == Some(false) {
        return Some("exits with a failure status".to_owned());
    }
    if let Some(e) = value
        .get("stderr")
        .and_then(Value::as_str)
        .filter(|e| !e.trim().is_empty())
    {
        return Some(e.to_owned());
    }
    value
        .get("complaint")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl Comparison for MutantsCmp {
    fn id(&self) -> ComparisonId {
        ComparisonId::Mutants
    }

    fn applies(&self, _target: &Target) -> Result<(), String> {
        Ok(())
    }

    fn chunks(&self, _target: &Target) -> u64 {
        self.objects.div_ceil(PER_CHUNK)
    }

    fn inputs(&self, target: &Target, chunk: u64) -> Vec<Input> {
        let first = chunk.saturating_mul(PER_CHUNK);
        let n = self.objects.saturating_sub(first).min(PER_CHUNK);
        (0..n)
            .filter_map(|i| {
                let c = mutant(target, self.seed, chunk, i)?;
                let rule = c.expect.as_str();
                Some(Input::File {
                    name: mutant_name(target.name, self.seed, chunk, i, rule),
                    bytes: c.elf,
                })
            })
            .collect()
    }

    fn origin(&self, target: &Target, chunk: u64, index: usize) -> String {
        format!(
            "mutant {} of {} (chunk {chunk}, seed {})",
            index, target.name, self.seed
        )
    }

    fn render(&self, peer: &dyn Peer, _target: &Target, input: &Input) -> Result<Input, String> {
        let Input::File { name, .. } = input else {
            return Err("mutants are code objects".to_owned());
        };
        let rule = rule_of(name).unwrap_or("");
        let family = peer.info().family;
        if !reads(family).iter().any(|p| rule.starts_with(p)) {
            return Err(format!(
                "the mutant breaks a rule about what {family} does not read"
            ));
        }
        Ok(input.clone())
    }

    fn compare(
        &self,
        peer: &dyn Peer,
        _target: &Target,
        input: &Input,
        view: &View,
        _reference: Option<&View>,
    ) -> Verdict {
        let (Input::File { name, .. }, View::Json { value }) = (input, view) else {
            return Verdict::NotComparable("not an object and a structured view".to_owned());
        };
        let rule = rule_of(name).unwrap_or("?");
        if complaint(peer.info().family, value).is_some() {
            return Verdict::Same;
        }
        Verdict::Differs(Difference {
            message: format!(
                "{} reads {name} without complaint, though it breaks {rule}",
                peer.id()
            ),
            key: format!("mutants: {} accepts objects breaking {rule}", peer.id()),
            tags: vec![format!("accepts:{rule}")],
            informational: true,
        })
    }

    fn shrink(&self, _input: &Input) -> Vec<Input> {
        // A mutant is one rule broken on a small object; the mutation is
        // drawn, so a smaller base would not carry the same break.
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::check::check_object;

    #[test]
    fn mutants_break_their_rule_and_name_it() {
        let t = hsaco_oracle::targets::by_name("gfx90a").expect("gfx90a");
        let cmp = MutantsCmp::new(3, 8);
        let inputs: Vec<Input> = (0..cmp.chunks(t)).flat_map(|c| cmp.inputs(t, c)).collect();
        assert_eq!(inputs.len(), 8);
        for i in &inputs {
            let Input::File { name, bytes } = i else {
                panic!("{i:?}")
            };
            let rule = rule_of(name).expect("rule in the name");
            let report = check_object(bytes);
            assert!(
                report.violations.iter().any(|v| v.rule.id == rule),
                "{name}: {:?}",
                report.violations
            );
        }
        // The same coordinates make the same mutant.
        assert_eq!(
            inputs,
            cmp.inputs(t, 0)
                .into_iter()
                .chain(cmp.inputs(t, 1))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn complaints() {
        assert!(complaint(
            "llvm-readobj",
            &serde_json::json!({"ok": true, "stderr": ""})
        )
        .is_none());
        assert!(complaint(
            "llvm-readobj",
            &serde_json::json!({"ok": false, "stderr": ""})
        )
        .is_some());
        assert!(complaint(
            "llvm-objdump",
            &serde_json::json!({"ok": true, "stderr": "warning: x"})
        )
        .is_some());
        assert!(complaint(
            "llvm-objdump",
            &serde_json::json!({"ok": true, "stderr": "", "complaint": "error decoding"})
        )
        .is_some());
    }
}
