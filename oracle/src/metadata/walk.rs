//! The root map, the target and each kernel map with its argument list.

use super::*;

impl<'a> Checker<'_, 'a> {
    /// Checks the root map and every kernel; returns what the object check
    /// needs of each kernel and, when `full`, the owned model.
    pub(super) fn root(&mut self, root: Node) -> Parts<'a> {
        let mut f: Fields<'_, ROOT_N> = Fields::new();
        self.scan(root, Level::Root, &"metadata", &mut f);
        let target = f.text(kdef!(root "amdhsa.target"));
        let version = f.ints::<2>(kdef!(root "amdhsa.version"));
        let printf = f.strs(kdef!(root "amdhsa.printf"), self.doc);

        if let (Some(v), Some(want)) = (version, self.ctx.cov.metadata_version()) {
            if v != want {
                self.report(
                    &VERSION_MISMATCH,
                    f.node(kdef!(root "amdhsa.version")),
                    format!(
                        "amdhsa.version is [{}, {}], code object {} needs [{}, {}]",
                        v[0], v[1], self.ctx.cov, want[0], want[1]
                    ),
                );
            }
        }
        let target_bytes = f.bytes(kdef!(root "amdhsa.target"));
        if target_bytes.is_none() || target_bytes != self.memo.quiet_target {
            let before = self.reports;
            self.target(target.as_deref(), f.node(kdef!(root "amdhsa.target")));
            if self.reports == before {
                self.memo.quiet_target = target_bytes;
            }
        }
        for (i, p) in printf.iter().enumerate() {
            if !printf_ok(p) {
                let node = f
                    .node(kdef!(root "amdhsa.printf"))
                    .and_then(|n| self.doc.children(n).nth(i));
                self.report(
                    &PRINTF_FORMAT,
                    node,
                    format!("amdhsa.printf[{i}] {p:?} is not ID:N:sizes:format"),
                );
            }
        }

        let doc = self.doc;
        let kernels_node = f.maps(kdef!(root "amdhsa.kernels"));
        // Presized for the entries of amdhsa.kernels (bounded by the input:
        // the document has an item per entry).
        let count = kernels_node
            .and_then(|n| match doc.raw(n) {
                Some(Raw::Array(len)) => Some(len.min(doc.items().len())),
                _ => None,
            })
            .unwrap_or(0);
        let mut refs = Vec::with_capacity(count);
        let root_facts = crate::notes::MetadataRoot {
            target_key: f.get(kdef!(root "amdhsa.target")).is_some(),
            version,
            target: target.as_deref().map(str::to_owned),
            printf: f
                .node(kdef!(root "amdhsa.printf"))
                .is_some()
                .then(|| printf.clone()),
        };
        let mut model = self.full.then(|| Metadata {
            version,
            target: target.as_deref().map(str::to_owned),
            printf,
            kernels: Vec::new(),
            other_keys: std::mem::take(&mut f.other),
        });
        if let Some(md) = &mut model {
            if f.get(kdef!(root "amdhsa.globals")).is_some() {
                md.other_keys.push(kname!(root "amdhsa.globals").to_owned());
            }
        }
        // Names and symbols within the note; one kernel (as Tensile writes
        // each note) cannot repeat them.
        let several = count > 1;
        let capacity = if several { count } else { 0 };
        let mut names: HashMap<Cow<'a, str>, usize, FastHash> =
            HashMap::with_capacity_and_hasher(capacity, FastHash);
        let mut symbols: HashMap<Cow<'a, str>, usize, FastHash> =
            HashMap::with_capacity_and_hasher(capacity, FastHash);
        let mut args = std::mem::take(&mut self.memo.scratch);
        let mut kf: Fields<'a, KERNEL_N> = Fields::new();
        let mut af: Fields<'a, ARG_N> = Fields::new();
        let kernel_maps = kernels_node
            .into_iter()
            .flat_map(|n| doc.children(n))
            .filter(|&n| matches!(doc.raw(n), Some(Raw::Map(_))));
        for (i, kn) in kernel_maps.enumerate() {
            let k = self.kernel(kn, i, &mut kf, &mut af, &mut args);
            self.sink.set_kernel(k.name.as_deref());
            if let Some(name) = k.name.as_ref().filter(|_| several) {
                if let Some(first) = names.insert(name.clone(), i) {
                    self.report(
                        &KERNEL_DUPLICATE_NAME,
                        kf.node(kdef!(kernel ".name")),
                        format!("kernel {i}: .name {name:?} also names kernel {first}"),
                    );
                }
            }
            if let Some(sym) = k.symbol.as_ref().filter(|_| several) {
                if let Some(first) = symbols.insert(sym.clone(), i) {
                    self.report(
                        &KERNEL_DUPLICATE_SYMBOL,
                        kf.node(kdef!(kernel ".symbol")),
                        format!("kernel {i}: .symbol {sym:?} is also the symbol of kernel {first}"),
                    );
                }
            }
            self.sink.set_kernel(None);
            if let Some(md) = &mut model {
                let owned_args = args.iter().map(|a| a.to_owned_arg(doc)).collect();
                md.kernels.push(k.to_owned_kernel(owned_args));
            }
            refs.push(KernelRef {
                facts: crate::kd::MetadataFacts {
                    sgpr_count: k.sgpr_count,
                    vgpr_count: k.vgpr_count,
                    agpr_count: k.agpr_count,
                    wavefront_size: k.wavefront_size,
                    group_segment_fixed_size: k.group_segment_fixed_size,
                    private_segment_fixed_size: k.private_segment_fixed_size,
                    kernarg_segment_size: k.kernarg_segment_size,
                    uses_dynamic_stack: k.uses_dynamic_stack,
                    workgroup_processor_mode: k.workgroup_processor_mode,
                },
                name: k.name,
                symbol: k.symbol,
            });
        }
        args.clear();
        self.memo.scratch = args;
        Parts {
            kernels: refs,
            root: root_facts,
            model,
        }
    }

    pub(super) fn target(&mut self, target: Option<&str>, node: Option<Node>) {
        // A missing key is judged per object, not per note
        // ([`missing_target`]): one note naming the target is enough.
        let Some(t) = target else {
            return;
        };
        let Some(rest) = t.strip_prefix(TARGET_PREFIX) else {
            self.report(
                &TARGET_INVALID,
                node,
                format!("amdhsa.target {t:?} does not start with {TARGET_PREFIX}"),
            );
            return;
        };
        // LLVM writes the V4 syntax (`:xnack+`); the V3 spelling
        // (`+xnack`) would mean other feature settings.
        if rest.find([':', '+']).and_then(|i| rest.get(i..=i)) == Some("+") {
            self.report(
                &TARGET_INVALID,
                node,
                format!("amdhsa.target {t:?} uses the V3 +feature syntax"),
            );
            return;
        }
        let id = match TargetId::parse(rest) {
            Ok(id) => id,
            // A valid processor newer than the target table: the ELF check
            // already says so; only a contradiction with a modelled e_flags
            // processor can be seen.
            Err(TargetIdError::UnmodelledProcessor { name }) => {
                if let Some(elf) = self.ctx.target_id {
                    self.report(
                        &TARGET_MISMATCH,
                        node,
                        format!(
                            "amdhsa.target {t:?} names {name} but e_flags say {TARGET_PREFIX}{elf}"
                        ),
                    );
                } else {
                    self.mach_mismatch(t, name, node);
                }
                return;
            }
            Err(e) => {
                self.report(&TARGET_INVALID, node, format!("amdhsa.target {t:?}: {e}"));
                return;
            }
        };
        match self.ctx.target_id {
            Some(elf) if id != elf => self.report(
                &TARGET_MISMATCH,
                node,
                format!("amdhsa.target {t:?} but e_flags say {TARGET_PREFIX}{elf}"),
            ),
            Some(_) => {}
            None => self.mach_mismatch(t, id.target.name, node),
        }
    }

    /// `amdhsa.target` names `processor` while `e_flags` do not decode to a
    /// target ID (EF_AMDGPU_MACH 0 or unknown, a newer processor, or
    /// feature fields the ELF check reports): a mismatch when the mach
    /// value is not `processor`'s.
    fn mach_mismatch(&mut self, t: &str, processor: &str, node: Option<Node>) {
        let mach = self.ctx.mach;
        let named = crate::targets::by_mach(mach)
            .map(|t| t.name)
            .or_else(|| crate::targets::unmodelled_mach(mach));
        if named == Some(processor) {
            return;
        }
        let elf = match (mach, named) {
            (0, _) => "0 (EF_AMDGPU_MACH_NONE), no processor".to_owned(),
            (m, Some(n)) => format!("{m:#x} ({n})"),
            (m, None) => format!("{m:#x}, no processor the oracle knows"),
        };
        self.report(
            &TARGET_MISMATCH,
            node,
            format!("amdhsa.target {t:?} names {processor}, but EF_AMDGPU_MACH is {elf}"),
        );
    }

    /// Checks one kernel map; leaves its arguments in `args` (reused
    /// across kernels to save allocations).
    pub(super) fn kernel(
        &mut self,
        kn: Node,
        index: usize,
        f: &mut Fields<'a, KERNEL_N>,
        af: &mut Fields<'a, ARG_N>,
        args: &mut Vec<ArgView<'a>>,
    ) -> KernelView<'a> {
        // Name the kernel in messages before its fields are known.
        let label = self
            .doc
            .map_get(kn, kname!(kernel ".name"))
            .and_then(|v| self.doc.raw(v))
            .and_then(|r| r.as_str_bytes())
            .map(lossy);
        self.sink.set_kernel(label.as_deref());
        let what = KernelWhat { index, label };
        self.scan(kn, Level::Kernel, &what, f);
        let k = KernelView {
            // The label is the same value, read the same way.
            name: what.label.clone(),
            symbol: f.text(kdef!(kernel ".symbol")),
            language: f.text(kdef!(kernel ".language")),
            language_version: f.ints::<2>(kdef!(kernel ".language_version")),
            reqd_workgroup_size: f.ints::<3>(kdef!(kernel ".reqd_workgroup_size")),
            workgroup_size_hint: f.ints::<3>(kdef!(kernel ".workgroup_size_hint")),
            vec_type_hint: f.text(kdef!(kernel ".vec_type_hint")),
            device_enqueue_symbol: f.text(kdef!(kernel ".device_enqueue_symbol")),
            kernarg_segment_size: f.uint(kdef!(kernel ".kernarg_segment_size")),
            group_segment_fixed_size: f.uint(kdef!(kernel ".group_segment_fixed_size")),
            private_segment_fixed_size: f.uint(kdef!(kernel ".private_segment_fixed_size")),
            kernarg_segment_align: f.uint(kdef!(kernel ".kernarg_segment_align")),
            wavefront_size: f.uint(kdef!(kernel ".wavefront_size")),
            sgpr_count: f.uint(kdef!(kernel ".sgpr_count")),
            vgpr_count: f.uint(kdef!(kernel ".vgpr_count")),
            agpr_count: f.uint(kdef!(kernel ".agpr_count")),
            max_flat_workgroup_size: f.uint(kdef!(kernel ".max_flat_workgroup_size")),
            max_num_workgroups_x: f.uint(kdef!(kernel ".max_num_workgroups_x")),
            max_num_workgroups_y: f.uint(kdef!(kernel ".max_num_workgroups_y")),
            max_num_workgroups_z: f.uint(kdef!(kernel ".max_num_workgroups_z")),
            sgpr_spill_count: f.uint(kdef!(kernel ".sgpr_spill_count")),
            vgpr_spill_count: f.uint(kdef!(kernel ".vgpr_spill_count")),
            kind: f.text(kdef!(kernel ".kind")),
            uses_dynamic_stack: f.bool(kdef!(kernel ".uses_dynamic_stack")),
            workgroup_processor_mode: f
                .uint(kdef!(kernel ".workgroup_processor_mode"))
                .map(|v| v != 0),
            uniform_work_group_size: f
                .uint(kdef!(kernel ".uniform_work_group_size"))
                .map(|v| v != 0),
            cluster_dims: f.ints::<3>(kdef!(kernel ".cluster_dims")),
            other_keys: std::mem::take(&mut f.other),
        };
        let doc = self.doc;
        let list = f.maps(kdef!(kernel ".args"));
        let key = list.and_then(|n| Some((n, doc.subtree_bytes(n)?)));
        let kss = k.kernarg_segment_size;
        let mut quiet_for = None;
        let remembered = key.and_then(|(n, b)| Some((n, *self.memo.index.get(b)?)));
        if let Some((n, li)) = remembered {
            let m = self.memo.lists.get(li);
            quiet_for = m.and_then(|m| m.quiet_for);
            if quiet_for == Some(kss) && !self.full {
                // Nothing reads the views: report the infos straight from
                // the memo.
                args.clear();
                self.kernel_rules(&k, f, &what);
                self.remembered_value_type_infos(li, n, &what);
                return k;
            }
            args.clear();
            args.extend(m.into_iter().flat_map(|m| &m.args).map(|a| ArgView {
                nodes: a.nodes.placed_at(n),
                ..a.clone()
            }));
        } else {
            let before = self.reports;
            let arg_maps = list
                .into_iter()
                .flat_map(|n| doc.children(n))
                .filter(|&n| matches!(doc.raw(n), Some(Raw::Map(_))));
            // The slots of the previous kernel's arguments are overwritten
            // in place (moving whole views showed as memcpy in profiles).
            let mut count = 0;
            for (i, an) in arg_maps.enumerate() {
                let what = ArgWhat {
                    kernel: &what,
                    index: i,
                };
                self.scan(an, Level::Arg, &what, af);
                if args.len() <= count {
                    args.push(ArgView::new());
                }
                if let Some(a) = args.get_mut(count) {
                    a.fill(af);
                }
                count += 1;
            }
            args.truncate(count);
            if let Some((n, b)) = key.filter(|_| self.reports == before) {
                self.memo.remember(doc, b, n, args);
            }
        }
        self.kernel_rules(&k, f, &what);
        if quiet_for == Some(kss) {
            self.value_type_infos(args, &what);
        } else {
            let before = self.reports;
            self.arg_rules(&k, args, &what);
            let infos = args
                .iter()
                .filter(|a| a.has(kdef!(arg ".value_type")))
                .count();
            if self.reports - before == infos {
                if let Some((_, b)) = key {
                    self.memo.quiet(b, kss);
                }
            }
        }
        k
    }
}
