//! Reduction: the smallest input that still shows a finding's signature.
//!
//! Two levels. [`ddmin`] (Zeller's delta debugging) drops inputs from a
//! sequence (instruction lines, kernels) while the problem holds; then
//! each remaining input is shrunk greedily with candidates from the
//! comparison ([`shrink_candidates`] for bytes: fewer bytes, bytes reset
//! to zero, single bits cleared), keeping a candidate whenever the problem
//! still holds, until no candidate does. The caller's `holds` runs the peer
//! and checks that the signature is the same (the same crash signal, the
//! same normalized difference), and a budget bounds the peer calls.

use super::Input;

/// Counts calls of the `holds` test and stops at a budget.
pub struct Budget {
    left: usize,
    /// Tests made.
    pub used: usize,
}

impl Budget {
    /// A budget of `n` tests.
    pub fn new(n: usize) -> Self {
        Self { left: n, used: 0 }
    }

    /// Takes one test from the budget; false when none is left.
    pub fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        self.used += 1;
        true
    }
}

/// A 1-minimal subsequence of `items` for which `holds` is true (assuming
/// it holds for `items`): removing any single element makes it fail, or
/// the budget ran out.
pub fn ddmin<T: Clone>(
    items: &[T],
    budget: &mut Budget,
    holds: &mut dyn FnMut(&[T]) -> bool,
) -> Vec<T> {
    let mut cur: Vec<T> = items.to_vec();
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunk = cur.len().div_ceil(n);
        let parts: Vec<Vec<T>> = cur.chunks(chunk).map(<[T]>::to_vec).collect();
        let mut reduced = false;
        // A part alone.
        for p in &parts {
            if !budget.take() {
                return cur;
            }
            if holds(p) {
                cur = p.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && parts.len() > 2 {
            // Everything but one part.
            for k in 0..parts.len() {
                let rest: Vec<T> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .flat_map(|(_, p)| p.iter().cloned())
                    .collect();
                if !budget.take() {
                    return cur;
                }
                if holds(&rest) {
                    cur = rest;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (n * 2).min(cur.len());
        }
    }
    cur
}

/// Greedy shrinking of one input: tries `candidates(current)` in order and
/// moves to the first that holds, until none does (or the budget ends).
pub fn shrink(
    input: &Input,
    budget: &mut Budget,
    candidates: &dyn Fn(&Input) -> Vec<Input>,
    holds: &mut dyn FnMut(&Input) -> bool,
) -> Input {
    let mut cur = input.clone();
    'outer: loop {
        for c in candidates(&cur) {
            if c == cur {
                continue;
            }
            if !budget.take() {
                break 'outer;
            }
            if holds(&c) {
                cur = c;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

/// Smaller variants of an input, most aggressive first. Bytes: the line
/// without its last dword (fewer bytes), each non-zero byte reset to zero,
/// then each set bit cleared (highest first); these converge on a
/// canonical smallest word, so the same problem reached from different
/// words usually reduces to the same input. Assembler text: each operand
/// dropped. Files: none (object-level comparisons supply their own).
pub fn shrink_candidates(input: &Input) -> Vec<Input> {
    match input {
        Input::Bytes { bytes } => {
            let mut v = Vec::new();
            if bytes.len() > 4 {
                let keep = (bytes.len() - 1) / 4 * 4;
                v.push(Input::bytes(bytes.get(..keep).unwrap_or(&[]).to_vec()));
            }
            for (k, b) in bytes.iter().enumerate() {
                if *b != 0 {
                    let mut c = bytes.clone();
                    if let Some(x) = c.get_mut(k) {
                        *x = 0;
                    }
                    v.push(Input::bytes(c));
                }
            }
            for k in (0..bytes.len()).rev() {
                let b = bytes.get(k).copied().unwrap_or(0);
                for bit in (0..8).rev() {
                    if b & (1 << bit) != 0 && b.count_ones() > 1 {
                        let mut c = bytes.clone();
                        if let Some(x) = c.get_mut(k) {
                            *x &= !(1 << bit);
                        }
                        v.push(Input::bytes(c));
                    }
                }
            }
            v
        }
        Input::Asm { text } if !text.contains('\n') => {
            // "mnemonic a, b, c": drop one operand at a time.
            let Some((m, ops)) = text.trim().split_once(' ') else {
                return Vec::new();
            };
            let ops: Vec<&str> = ops.split(',').map(str::trim).collect();
            (0..ops.len())
                .rev()
                .map(|k| {
                    let rest: Vec<&str> = ops
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .map(|(_, o)| *o)
                        .collect();
                    Input::Asm {
                        text: if rest.is_empty() {
                            m.to_owned()
                        } else {
                            format!("{m} {}", rest.join(", "))
                        },
                    }
                })
                .collect()
        }
        Input::Asm { .. } | Input::File { .. } => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmin_finds_the_one_culprit() {
        let items: Vec<u32> = (0..1000).collect();
        let mut calls = 0;
        let mut b = Budget::new(10_000);
        let r = ddmin(&items, &mut b, &mut |s: &[u32]| {
            calls += 1;
            s.contains(&617)
        });
        assert_eq!(r, vec![617]);
        assert!(calls < 60, "{calls}");
    }

    #[test]
    fn ddmin_keeps_a_pair_that_is_needed() {
        let items: Vec<u32> = (0..64).collect();
        let mut b = Budget::new(10_000);
        let r = ddmin(&items, &mut b, &mut |s: &[u32]| {
            s.contains(&3) && s.contains(&40)
        });
        assert_eq!(r, vec![3, 40]);
    }

    #[test]
    fn ddmin_stops_at_the_budget() {
        let items: Vec<u32> = (0..1000).collect();
        let mut b = Budget::new(3);
        let r = ddmin(&items, &mut b, &mut |s: &[u32]| s.contains(&617));
        assert_eq!(b.used, 3);
        assert!(r.contains(&617));
    }

    #[test]
    fn bytes_shrink_to_the_bits_that_matter() {
        // The "problem": byte 0 is 0xf9 and bits 42:40 are 7.
        let word: Vec<u8> = vec![
            0xf9, 0x06, 0x02, 0x02, 0x02, 0x07, 0x06, 0x06, 0xaa, 0xbb, 0xcc, 0xdd,
        ];
        let holds = |i: &Input| match i {
            Input::Bytes { bytes } => bytes.len() >= 8 && bytes[0] == 0xf9 && bytes[5] & 7 == 7,
            _ => false,
        };
        let mut b = Budget::new(1000);
        let r = shrink(&Input::bytes(word), &mut b, &shrink_candidates, &mut |i| {
            holds(i)
        });
        assert_eq!(r, Input::bytes(vec![0xf9, 0, 0, 0, 0, 7, 0, 0]));
    }

    #[test]
    fn asm_shrink_drops_operands() {
        let c = shrink_candidates(&Input::Asm {
            text: "s_load_dword s5, s[2:3], 0x10".to_owned(),
        });
        let texts: Vec<String> = c.iter().map(Input::display).collect();
        assert_eq!(
            texts,
            vec![
                "s_load_dword s5, s[2:3]",
                "s_load_dword s5, 0x10",
                "s_load_dword s[2:3], 0x10"
            ]
        );
    }
}
