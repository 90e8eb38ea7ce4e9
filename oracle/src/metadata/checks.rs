//! The rules on a kernel's values and on its arguments.

use super::*;

impl Checker<'_, '_> {
    pub(super) fn kernel_rules(
        &mut self,
        k: &KernelView<'_>,
        f: &Fields<'_, KERNEL_N>,
        what: &dyn fmt::Display,
    ) {
        if let (Some(name), Some(sym)) = (&k.name, &k.symbol) {
            if sym.strip_suffix(".kd") != Some(name.as_ref()) {
                self.report(
                    &KERNEL_SYMBOL_NAME,
                    f.node(kdef!(kernel ".symbol")),
                    format!("{what}: .symbol {sym:?} is not {:?}", format!("{name}.kd")),
                );
            }
        }
        if let Some(a) = k.kernarg_segment_align {
            if !a.is_power_of_two() {
                self.report(
                    &KERNARG_SEGMENT_ALIGN,
                    f.node(kdef!(kernel ".kernarg_segment_align")),
                    format!("{what}: .kernarg_segment_align {a} is not a power of two"),
                );
            }
        }
        if let Some(w) = k.wavefront_size {
            let target = self.ctx.target_id.map(|t| t.target);
            let problem = match w {
                32 if target.is_some_and(|t| !t.wave32) => Some(format!(
                    "{what}: wave32 but {} has no wave32",
                    target.map_or("", |t| t.name)
                )),
                64 if target.is_some_and(|t| !t.wave64) => Some(format!(
                    "{what}: wave64 but {} has no wave64",
                    target.map_or("", |t| t.name)
                )),
                32 | 64 => None,
                _ => Some(format!("{what}: .wavefront_size {w} is neither 32 nor 64")),
            };
            if let Some(m) = problem {
                self.report(&WAVEFRONT_SIZE, f.node(kdef!(kernel ".wavefront_size")), m);
            }
        }
        if let Some(m) = k.max_flat_workgroup_size {
            if !(1..=1024).contains(&m) {
                self.report(
                    &MAX_FLAT_WORKGROUP_SIZE,
                    f.node(kdef!(kernel ".max_flat_workgroup_size")),
                    format!("{what}: .max_flat_workgroup_size {m} is outside 1..=1024"),
                );
            }
        }
        if let Some(r) = k.reqd_workgroup_size {
            if r != [0, 0, 0] && r.contains(&0) {
                self.report(
                    &REQD_WORKGROUP_SIZE,
                    f.node(kdef!(kernel ".reqd_workgroup_size")),
                    format!("{what}: .reqd_workgroup_size {r:?} mixes zero and non-zero"),
                );
            } else if let Some(m) = k.max_flat_workgroup_size {
                let product = r.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
                if r != [0, 0, 0] && product.is_none_or(|p| p > m) {
                    self.report(
                        &REQD_WORKGROUP_SIZE_LIMIT,
                        f.node(kdef!(kernel ".reqd_workgroup_size")),
                        format!("{what}: .reqd_workgroup_size {r:?} exceeds .max_flat_workgroup_size {m}"),
                    );
                }
            }
        }
        if let Some(v) = f.uint(kdef!(kernel ".workgroup_processor_mode")) {
            let no_wgp = self
                .ctx
                .target_id
                .map(|t| t.target)
                .filter(|t| !t.has_wgp_mode());
            if v > 1 {
                self.report(
                    &WORKGROUP_PROCESSOR_MODE,
                    f.node(kdef!(kernel ".workgroup_processor_mode")),
                    format!("{what}: .workgroup_processor_mode {v} is not 0 or 1"),
                );
            } else if let Some(t) = no_wgp {
                self.report(
                    &WORKGROUP_PROCESSOR_MODE,
                    f.node(kdef!(kernel ".workgroup_processor_mode")),
                    format!(
                        "{what}: .workgroup_processor_mode given but {} has no WGP mode",
                        t.name
                    ),
                );
            }
        }
        if let Some(v) = f.uint(kdef!(kernel ".uniform_work_group_size")) {
            if v > 1 {
                self.report(
                    &UNIFORM_WORK_GROUP_SIZE,
                    f.node(kdef!(kernel ".uniform_work_group_size")),
                    format!("{what}: .uniform_work_group_size {v} is not 0 or 1"),
                );
            }
        }
        if let Some(kind) = &k.kind {
            if !KERNEL_KINDS.contains(&kind.as_ref()) {
                self.report(
                    &KERNEL_KIND,
                    f.node(kdef!(kernel ".kind")),
                    format!("{what}: .kind {kind:?} is not normal, init or fini"),
                );
            }
        }
    }

    pub(super) fn arg_rules(
        &mut self,
        k: &KernelView<'_>,
        args: &[ArgView<'_>],
        what: &dyn fmt::Display,
    ) {
        let cov = self.ctx.cov;
        for (i, a) in args.iter().enumerate() {
            let af = &a.nodes;
            let what = ArgWhat {
                kernel: what,
                index: i,
            };
            let kind = a.kind();
            self.value_type_info(a, &what);
            if let Some(kind) = kind {
                self.arg_kind_rules(a, kind, &what);
            }
            if let Some(p) = a.pointee_align {
                if !p.is_power_of_two() {
                    self.report(
                        &ARG_POINTEE_ALIGN,
                        af.get(kdef!(arg ".pointee_align")),
                        format!("{what}: .pointee_align {p} is not a power of two"),
                    );
                }
            }
            let (Some(off), Some(size)) = (a.offset, a.size) else {
                continue;
            };
            match (off.checked_add(size), k.kernarg_segment_size) {
                (None, _) => self.report(
                    &ARG_OUT_OF_BOUNDS,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!("{what}: .offset + .size overflows"),
                ),
                (Some(end), Some(kss)) if end > kss => self.report(
                    &ARG_OUT_OF_BOUNDS,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!("{what}: bytes {off}..{end} end past .kernarg_segment_size {kss}"),
                ),
                _ => {}
            }
            let natural = match kind {
                Some(ValueKind::ByValue) | None => None,
                Some(_) => Some(size).filter(|s| matches!(s, 2 | 4 | 8)),
            };
            if let Some(al) = natural {
                if off % al != 0 {
                    self.report(
                        &ARG_MISALIGNED,
                        a.nodes.get(kdef!(arg ".offset")),
                        format!("{what}: .offset {off} is not a multiple of {al}"),
                    );
                }
            }
            if let Some(kind) = kind.filter(|k| k.is_hidden()) {
                if kind.since_v5() && cov < CodeObjectVersion::V5 {
                    self.report(
                        &ARG_HIDDEN_VERSION,
                        af.get(kdef!(arg ".value_kind")),
                        format!(
                            "{what}: {} is a V5 hidden argument, this object is {cov}",
                            kind.as_str()
                        ),
                    );
                }
            }
        }
        self.hidden_layout(args, what);
        self.overlaps(args, what);
    }

    /// `metadata.arg.value_type` for argument `a`, named `what`.
    pub(super) fn value_type_info(&mut self, a: &ArgView<'_>, what: &ArgWhat<'_>) {
        if let Some(n) = a.nodes.get(kdef!(arg ".value_type")) {
            self.report_lazy(&ARG_VALUE_TYPE, Some(n), || {
                format!("{what}: deprecated .value_type")
            });
        }
    }

    /// What [`Checker::arg_rules`] reports for a remembered argument list
    /// that broke no argument rule: the `.value_type` infos, in order.
    pub(super) fn value_type_infos(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        for (i, a) in args.iter().enumerate() {
            let what = ArgWhat {
                kernel: what,
                index: i,
            };
            self.value_type_info(a, &what);
        }
    }

    /// [`Checker::value_type_infos`] for remembered list `li` placed at
    /// node `list`.
    pub(super) fn remembered_value_type_infos(
        &mut self,
        li: usize,
        list: Node,
        what: &dyn fmt::Display,
    ) {
        let count = self.memo.lists.get(li).map_or(0, |m| m.args.len());
        for i in 0..count {
            let node = self
                .memo
                .lists
                .get(li)
                .and_then(|m| m.args.get(i))
                .and_then(|a| a.nodes.placed_at(list).get(kdef!(arg ".value_type")));
            if let Some(n) = node {
                let what = ArgWhat {
                    kernel: what,
                    index: i,
                };
                self.report_lazy(&ARG_VALUE_TYPE, Some(n), || {
                    format!("{what}: deprecated .value_type")
                });
            }
        }
    }

    pub(super) fn arg_kind_rules(
        &mut self,
        a: &ArgView<'_>,
        kind: ValueKind,
        what: &dyn fmt::Display,
    ) {
        use ValueKind as K;
        let af = &a.nodes;
        let mut misplaced: [Option<(&str, usize)>; 4] = [None; 4];
        if a.pointee_align.is_some() && kind != K::DynamicSharedPointer {
            misplaced[0] = Some((kname!(arg ".pointee_align"), kdef!(arg ".pointee_align")));
        }
        if a.address_space.is_some() && !matches!(kind, K::GlobalBuffer | K::DynamicSharedPointer) {
            misplaced[1] = Some((kname!(arg ".address_space"), kdef!(arg ".address_space")));
        }
        // The doc allows .access only on images and pipes, but clang writes
        // it on HIP global_buffer arguments too (docs/errata.md).
        if a.has(kdef!(arg ".access")) && !matches!(kind, K::Image | K::Pipe | K::GlobalBuffer) {
            misplaced[2] = Some((kname!(arg ".access"), kdef!(arg ".access")));
        }
        if a.is_pipe.is_some() && kind != K::Pipe {
            misplaced[3] = Some((kname!(arg ".is_pipe"), kdef!(arg ".is_pipe")));
        }
        for (key, di) in misplaced.into_iter().flatten() {
            self.report(
                &ARG_KEY_KIND,
                af.get(di),
                format!("{what}: {key} on a {} argument", kind.as_str()),
            );
        }
        let as_ = a.address_space;
        let space = as_.map(|b| Space::from_index(bytes_index(ADDRESS_SPACES, b)));
        if kind.wrong_space(space) {
            self.report(
                &ARG_ADDRESS_SPACE,
                af.get(kdef!(arg ".address_space")),
                format!(
                    "{what}: {} in address space {}",
                    kind.as_str(),
                    as_.map(lossy).unwrap_or_default()
                ),
            );
        }
        let want = kind.pointer_size(space);
        if let (Some(want), Some(size)) = (want, a.size) {
            if size != want {
                self.report(
                    &ARG_KIND_SIZE,
                    af.get(kdef!(arg ".size")),
                    format!("{what}: {} of size {size}, expected {want}", kind.as_str()),
                );
            }
        }
    }

    /// Checks hidden arguments against their fixed slots. The hidden block
    /// starts where LLVM's implicit argument pointer points: the end of the
    /// explicit arguments rounded up to 8 (`getAlignmentForImplicitArgPtr`
    /// for amdhsa; confirmed with clang-19).
    pub(super) fn hidden_layout(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        let spans = args.iter().map(|a| (a.kind(), a.offset, a.size));
        let Some(base) = hidden_block_start(spans) else {
            return;
        };
        for (i, a) in args.iter().enumerate() {
            let Some(kind) = a.kind() else { continue };
            let Some((slot, size)) = kind.hidden_slot(self.ctx.cov) else {
                continue;
            };
            let Some(want) = base.checked_add(slot) else {
                continue;
            };
            if a.offset.is_some_and(|o| o != want) || a.size.is_some_and(|s| s != size) {
                self.report(
                    &ARG_HIDDEN_LAYOUT,
                    a.nodes.get(kdef!(arg ".offset")),
                    format!(
                        "{what} arg {i}: {} at offset {} size {}, expected offset {want} (hidden block at {base}) size {size}",
                        kind.as_str(),
                        a.offset.unwrap_or(0),
                        a.size.unwrap_or(0)
                    ),
                );
            }
        }
    }

    pub(super) fn overlaps(&mut self, args: &[ArgView<'_>], what: &dyn fmt::Display) {
        let mut spans: Vec<(u64, u64, usize)> = args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let (o, s) = (a.offset?, a.size?);
                (s > 0).then_some((o, o.saturating_add(s), i))
            })
            .collect();
        spans.sort_unstable();
        // Sweep: the furthest end so far and whose it is.
        let mut reach: Option<(u64, usize)> = None;
        for &(start, end, i) in &spans {
            if let Some((r, j)) = reach {
                if start < r {
                    let node = args.get(i).and_then(|a| a.nodes.get(kdef!(arg ".offset")));
                    self.report(
                        &ARG_OVERLAP,
                        node,
                        format!(
                            "{what}: arg {i} (bytes {start}..{end}) overlaps arg {j} (ends at {r})"
                        ),
                    );
                }
            }
            if reach.is_none_or(|(r, _)| end > r) {
                reach = Some((end, i));
            }
        }
    }
}
