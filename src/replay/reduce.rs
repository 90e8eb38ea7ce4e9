//! Reducing an SGPR probe's difference to the fewest enables that still
//! show it: the hardware analogue of `conform`'s input reduction. From the
//! case's enable set, every set one enable smaller
//! ([`hsaco_gen::sgpr::Enables::smaller`]) is planned and run on the GPU
//! in one batch; the first that still shows a difference with the same
//! key becomes the new start, until no smaller set shows it. A finding
//! then names the smallest case (`gen --case` makes it again) and how
//! many GPU runs the reduction took.

use std::path::Path;

use hsaco_gen::probe;
use hsaco_gen::sgpr::{suite_index, Enables};
use hsaco_gen::target::Family;
use hsaco_oracle::targets::{by_name, Target};

use super::plan::{self, Case};

/// Most reduction steps (each one batch of GPU runs): every step clears
/// at least one enable, and an entry has fewer than 40.
pub const MAX_STEPS: usize = 40;

/// The smallest enable set reachable from `start` by one-enable steps for
/// which `still` says the difference persists, and how many candidates
/// were tried. `still` gets one step's candidates together (one GPU batch)
/// and answers with the index of the first that still shows it.
pub fn reduce_enables(
    start: Enables,
    mut still: impl FnMut(&[Enables]) -> Option<usize>,
) -> (Enables, usize) {
    let mut at = start;
    let mut tried = 0;
    for _ in 0..MAX_STEPS {
        let candidates = at.smaller();
        if candidates.is_empty() {
            break;
        }
        tried += candidates.len();
        match still(&candidates) {
            Some(i) if i < candidates.len() => at = candidates[i],
            _ => break,
        }
    }
    (at, tried)
}

/// The processor and suite entry an SGPR probe name names.
pub fn parse_sgpr_case(case: &str) -> Option<(&'static Target, usize)> {
    let rest = case.strip_prefix("probe.sgpr.")?;
    let (cpu, index) = rest.rsplit_once('.')?;
    Some((by_name(cpu)?, index.parse().ok()?))
}

/// The SGPR probe case of `enables` on `t`, if they are a suite entry.
pub fn case_of(t: &'static Target, enables: &Enables) -> Option<Case> {
    let family = Family::of(t)?;
    Some(Case::Sgpr(t, suite_index(family, enables)?))
}

/// The name of an SGPR case.
pub fn case_name(c: &Case) -> Option<String> {
    match *c {
        Case::Sgpr(t, i) => {
            let entry = probe::suite_entry_for(t, i)?;
            Some(probe::sgpr_probe_name(&entry, i))
        }
        Case::Smem(..) => None,
    }
}

/// Writes one step's bundle of `cases` to `dir`.
pub fn write_step(dir: &Path, cases: &[Case]) -> Result<usize, String> {
    plan::write_cases(dir, cases, 0, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gfx90a() -> &'static Target {
        by_name("gfx90a").unwrap()
    }

    #[test]
    fn reduction_keeps_exactly_the_enables_the_difference_needs() {
        // A difference that needs work-group info and work-group id Y, from
        // the last (largest) entry of the family.
        let start = hsaco_gen::sgpr::suite(Family::Gfx90a)
            .last()
            .unwrap()
            .enables;
        let shows = |e: &Enables| e.workgroup_info && e.workgroup_ids & 2 != 0;
        assert!(shows(&start));
        let mut batches = 0;
        let (end, tried) = reduce_enables(start, |c| {
            batches += 1;
            c.iter().position(shows)
        });
        assert_eq!(
            end,
            Enables {
                workgroup_info: true,
                workgroup_ids: 2,
                ..Enables::default()
            }
        );
        assert!(tried >= batches);
        assert!(case_of(gfx90a(), &end).is_some());
    }

    #[test]
    fn a_difference_no_smaller_set_shows_stays_where_it_is() {
        let start = hsaco_gen::sgpr::suite(Family::Gfx9)
            .nth(100)
            .unwrap()
            .enables;
        let (end, tried) = reduce_enables(start, |_| None);
        assert_eq!(end, start);
        assert_eq!(tried, start.smaller().len());
    }

    #[test]
    fn names_round_trip() {
        let t = gfx90a();
        let c = Case::Sgpr(t, 17);
        let name = case_name(&c).unwrap();
        assert_eq!(name, "probe.sgpr.gfx90a.17");
        assert_eq!(parse_sgpr_case(&name), Some((t, 17)));
        assert_eq!(parse_sgpr_case("probe.smem.gfx90a.1.2"), None);
    }
}
