//! The root mapping, each kernel and its arguments, and the rules on
//! them (argument layout included).

use super::*;

impl Checker<'_> {
    pub(super) fn root(&mut self, entries: &[Entry], at: usize) -> MetadataV2 {
        let f = self.scan(entries, at, ROOT_KEYS, "metadata", &MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ROOT_KEYS,
        };
        let version = g.ints("Version");
        if let Some(v) = &version {
            if v.as_slice() != [1, 0] {
                self.report(
                    &VERSION,
                    g.at("Version"),
                    format!("Version is {v:?}, expected [1, 0]"),
                );
            }
        }
        let printf: Vec<String> = g.strs("Printf").into_iter().map(str::to_owned).collect();
        for (i, p) in printf.iter().enumerate() {
            if !printf_ok(p) {
                self.report(
                    &PRINTF_FORMAT,
                    g.at("Printf"),
                    format!("Printf[{i}] {p:?} is not ID:N:sizes:format"),
                );
            }
        }
        let mut kernels = Vec::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut symbols: HashMap<String, usize> = HashMap::new();
        for (i, k) in g.maps("Kernels").into_iter().enumerate() {
            let at = k.first().map_or(at, |e| e.key_offset);
            let kernel = self.kernel(k, at, i);
            self.sink.set_kernel(kernel.name.as_deref());
            for (key, value, seen) in [
                ("Name", &kernel.name, &mut names),
                ("SymbolName", &kernel.symbol_name, &mut symbols),
            ] {
                if let Some(v) = value {
                    if let Some(first) = seen.insert(v.clone(), i) {
                        self.report(
                            &KERNEL_DUPLICATE,
                            Some(at),
                            format!("kernel {i}: {key} {v:?} is also the {key} of kernel {first}"),
                        );
                    }
                }
            }
            self.sink.set_kernel(None);
            kernels.push(kernel);
        }
        MetadataV2 {
            version,
            printf,
            kernels,
            other_keys: f.other.clone(),
        }
    }

    pub(super) fn kernel(&mut self, entries: &[Entry], at: usize, index: usize) -> KernelV2 {
        let label = entries
            .iter()
            .rev()
            .find(|e| e.key.text == "Name")
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.clone());
        self.sink.set_kernel(label.as_deref());
        let what = match &label {
            Some(n) => format!("kernel {index} ({n})"),
            None => format!("kernel {index}"),
        };
        let f = self.scan(entries, at, KERNEL_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: KERNEL_KEYS,
        };
        let name = g.string("Name");
        let symbol_name = g.string("SymbolName");
        if let (Some(n), Some(s)) = (&name, &symbol_name) {
            if s.strip_suffix("@kd") != Some(n.as_str()) {
                self.report(
                    &KERNEL_SYMBOL_NAME,
                    g.at("SymbolName"),
                    format!("{what}: SymbolName {s:?} is not {:?}", format!("{n}@kd")),
                );
            }
        }
        let language_version = g.ints("LanguageVersion");
        self.length(
            &language_version,
            2,
            g.at("LanguageVersion"),
            &what,
            "LanguageVersion",
        );
        let attrs = g
            .map("Attrs")
            .map(|m| self.attrs(m, g.at("Attrs").unwrap_or(at), &what));
        let code_props = match g.map("CodeProps") {
            Some(m) => Some(self.code_props(m, g.at("CodeProps").unwrap_or(at), &what)),
            None => {
                if g.at("CodeProps").is_none() && !entries.iter().any(|e| e.key.text == "CodeProps")
                {
                    self.report(
                        &CODE_PROPS_MISSING,
                        Some(at),
                        format!("{what}: no CodeProps"),
                    );
                }
                None
            }
        };
        let debug_props = g
            .map("DebugProps")
            .map(|m| self.debug_props(m, g.at("DebugProps").unwrap_or(at), &what));
        let mut args = Vec::new();
        let mut arg_at = Vec::new();
        for (i, a) in g.maps("Args").into_iter().enumerate() {
            let a_at = a.first().map_or(at, |e| e.key_offset);
            let (arg, where_) = self.arg(a, a_at, &format!("{what} arg {i}"));
            args.push(arg);
            arg_at.push(where_);
        }
        let mut k = KernelV2 {
            name,
            symbol_name,
            language: g.string("Language"),
            language_version,
            attrs,
            args,
            code_props,
            debug_props,
            other_keys: f.other.clone(),
        };
        self.kernel_rules(&k, &g, &what);
        self.layout(&mut k, &arg_at, &what);
        k
    }

    pub(super) fn attrs(&mut self, entries: &[Entry], at: usize, what: &str) -> AttrsV2 {
        let what = format!("{what} Attrs");
        let f = self.scan(entries, at, ATTRS_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ATTRS_KEYS,
        };
        let reqd = g.ints("ReqdWorkGroupSize");
        let hint = g.ints("WorkGroupSizeHint");
        self.length(
            &reqd,
            3,
            g.at("ReqdWorkGroupSize"),
            &what,
            "ReqdWorkGroupSize",
        );
        self.length(
            &hint,
            3,
            g.at("WorkGroupSizeHint"),
            &what,
            "WorkGroupSizeHint",
        );
        if let Some(r) = &reqd {
            if r.len() == 3 && r.contains(&0) && r.iter().any(|&x| x != 0) {
                self.report(
                    &REQD_WORK_GROUP_SIZE,
                    g.at("ReqdWorkGroupSize"),
                    format!("{what}: ReqdWorkGroupSize {r:?} mixes zero and non-zero"),
                );
            }
        }
        AttrsV2 {
            reqd_work_group_size: reqd,
            work_group_size_hint: hint,
            vec_type_hint: g.string("VecTypeHint"),
            runtime_handle: g.string("RuntimeHandle"),
            other_keys: f.other.clone(),
        }
    }

    pub(super) fn code_props(&mut self, entries: &[Entry], at: usize, what: &str) -> CodePropsV2 {
        let what = format!("{what} CodeProps");
        let f = self.scan(entries, at, CODE_PROPS_KEYS, &what, &CODE_PROPS_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: CODE_PROPS_KEYS,
        };
        let cp = CodePropsV2 {
            kernarg_segment_size: g.uint("KernargSegmentSize"),
            group_segment_fixed_size: g.uint("GroupSegmentFixedSize"),
            private_segment_fixed_size: g.uint("PrivateSegmentFixedSize"),
            kernarg_segment_align: g.uint("KernargSegmentAlign"),
            wavefront_size: g.uint("WavefrontSize"),
            num_sgprs: g.uint("NumSGPRs"),
            num_vgprs: g.uint("NumVGPRs"),
            max_flat_work_group_size: g.uint("MaxFlatWorkGroupSize"),
            is_dynamic_call_stack: g.bool("IsDynamicCallStack"),
            is_xnack_enabled: g.bool("IsXNACKEnabled"),
            num_spilled_sgprs: g.uint("NumSpilledSGPRs"),
            num_spilled_vgprs: g.uint("NumSpilledVGPRs"),
            other_keys: f.other.clone(),
        };
        if let Some(a) = cp.kernarg_segment_align {
            if !a.is_power_of_two() {
                self.report(
                    &KERNARG_SEGMENT_ALIGN,
                    g.at("KernargSegmentAlign"),
                    format!("{what}: KernargSegmentAlign {a} is not a power of two"),
                );
            }
        }
        if let Some(w) = cp.wavefront_size {
            let target = self.ctx.target_id.map(|t| t.target);
            let problem = match w {
                32 if target.is_some_and(|t| !t.wave32) => Some(format!(
                    "{what}: WavefrontSize 32 but {} has no wave32",
                    target.map_or("", |t| t.name)
                )),
                64 if target.is_some_and(|t| !t.wave64) => Some(format!(
                    "{what}: WavefrontSize 64 but {} has no wave64",
                    target.map_or("", |t| t.name)
                )),
                32 | 64 => None,
                _ => Some(format!("{what}: WavefrontSize {w} is neither 32 nor 64")),
            };
            if let Some(m) = problem {
                self.report(&WAVEFRONT_SIZE, g.at("WavefrontSize"), m);
            }
        }
        if let Some(m) = cp.max_flat_work_group_size {
            if !(1..=1024).contains(&m) {
                self.report(
                    &MAX_FLAT_WORK_GROUP_SIZE,
                    g.at("MaxFlatWorkGroupSize"),
                    format!("{what}: MaxFlatWorkGroupSize {m} is outside 1..=1024"),
                );
            }
        }
        if let Some(id) = self.ctx.target_id {
            let on = cp.is_xnack_enabled.unwrap_or(false);
            let flag = match id.xnack {
                FeatureSetting::On => Some(true),
                FeatureSetting::Off => Some(false),
                FeatureSetting::Any | FeatureSetting::Unsupported => None,
            };
            if let Some(flag) = flag {
                if flag != on {
                    self.report(
                        &XNACK,
                        g.at("IsXNACKEnabled").or(Some(at)),
                        format!(
                            "{what}: IsXNACKEnabled is {on} but the e_flags xnack bit is {}",
                            if flag { "set" } else { "clear" }
                        ),
                    );
                }
            }
        }
        cp
    }

    pub(super) fn debug_props(&mut self, entries: &[Entry], at: usize, what: &str) -> DebugPropsV2 {
        let what = format!("{what} DebugProps");
        let f = self.scan(entries, at, DEBUG_PROPS_KEYS, &what, &KERNEL_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: DEBUG_PROPS_KEYS,
        };
        DebugPropsV2 {
            debugger_abi_version: g.ints("DebuggerABIVersion"),
            reserved_num_vgprs: g.uint("ReservedNumVGPRs"),
            reserved_first_vgpr: g.uint("ReservedFirstVGPR"),
            private_segment_buffer_sgpr: g.uint("PrivateSegmentBufferSGPR"),
            wavefront_private_segment_offset_sgpr: g.uint("WavefrontPrivateSegmentOffsetSGPR"),
            other_keys: f.other.clone(),
        }
    }

    pub(super) fn arg(&mut self, entries: &[Entry], at: usize, what: &str) -> (ArgV2, ArgAt) {
        let f = self.scan(entries, at, ARG_KEYS, what, &ARG_MISSING_KEY);
        let g = Get {
            f: &f,
            defs: ARG_KEYS,
        };
        let arg = ArgV2 {
            name: g.string("Name"),
            type_name: g.string("TypeName"),
            size: g.uint("Size"),
            align: g.uint("Align"),
            value_kind: g.string("ValueKind"),
            value_type: g.string("ValueType"),
            pointee_align: g.uint("PointeeAlign"),
            addr_space_qual: g.string("AddrSpaceQual"),
            acc_qual: g.string("AccQual"),
            actual_acc_qual: g.string("ActualAccQual"),
            is_const: g.bool("IsConst"),
            is_restrict: g.bool("IsRestrict"),
            is_volatile: g.bool("IsVolatile"),
            is_pipe: g.bool("IsPipe"),
            offset: None,
            other_keys: f.other.clone(),
        };
        let where_ = ArgAt {
            size: g.at("Size"),
            align: g.at("Align"),
            value_type: g.at("ValueType"),
            pointee_align: g.at("PointeeAlign"),
            addr_space_qual: g.at("AddrSpaceQual"),
            is_pipe: g.at("IsPipe"),
            map: at,
        };
        (arg, where_)
    }

    pub(super) fn kernel_rules(&mut self, k: &KernelV2, g: &Get<'_, '_>, what: &str) {
        let reqd = k
            .attrs
            .as_ref()
            .and_then(|a| a.reqd_work_group_size.as_deref());
        let max = k
            .code_props
            .as_ref()
            .and_then(|c| c.max_flat_work_group_size);
        if let (Some(r), Some(m)) = (reqd, max) {
            if r.len() == 3 && r.iter().all(|&x| x != 0) {
                let product = r.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
                if product.is_none_or(|p| p > m) {
                    self.report(
                        &REQD_WORK_GROUP_SIZE_LIMIT,
                        g.at("Attrs"),
                        format!("{what}: ReqdWorkGroupSize {r:?} exceeds MaxFlatWorkGroupSize {m}"),
                    );
                }
            }
        }
    }

    /// Computes the argument offsets and checks the layout rules.
    pub(super) fn layout(&mut self, k: &mut KernelV2, at: &[ArgAt], what: &str) {
        let cp = k.code_props.as_ref();
        let kss = cp.and_then(|c| c.kernarg_segment_size);
        let ksa = cp.and_then(|c| c.kernarg_segment_align);
        let mut end: Option<u64> = Some(0);
        for (i, (a, w)) in k.args.iter_mut().zip(at).enumerate() {
            let what = format!("{what} arg {i}");
            if let Some(al) = a.align {
                if !al.is_power_of_two() {
                    self.report(
                        &ARG_ALIGN,
                        w.align,
                        format!("{what}: Align {al} is not a power of two"),
                    );
                } else if ksa.is_some_and(|s| s.is_power_of_two() && al > s) {
                    self.report(
                        &ARG_ALIGN_SEGMENT,
                        w.align,
                        format!(
                            "{what}: Align {al} exceeds KernargSegmentAlign {}",
                            ksa.unwrap_or(0)
                        ),
                    );
                }
            }
            if let Some(p) = a.pointee_align {
                if p != 0 && !p.is_power_of_two() {
                    self.report(
                        &ARG_POINTEE_ALIGN,
                        w.pointee_align,
                        format!("{what}: PointeeAlign {p} is not a power of two"),
                    );
                }
            }
            if a.value_type.is_some() {
                self.report(
                    &ARG_VALUE_TYPE,
                    w.value_type,
                    format!("{what}: deprecated ValueType"),
                );
            }
            if let Some(kind) = a.kind() {
                self.arg_kind_rules(a, w, kind, &what);
            }
            // The offset a runtime computes, as long as every argument so
            // far had a usable Size and Align.
            let placed = match (end, a.size, a.align) {
                (Some(e), Some(size), Some(al)) if al.is_power_of_two() => {
                    let off = e.checked_add(al - 1).map(|x| x & !(al - 1));
                    off.and_then(|o| Some((o, o.checked_add(size)?)))
                }
                _ => None,
            };
            match placed {
                Some((off, new_end)) => {
                    a.offset = Some(off);
                    end = Some(new_end);
                    if let Some(kss) = kss {
                        if new_end > kss {
                            self.report(
                                &ARG_OUT_OF_BOUNDS,
                                w.size.or(Some(w.map)),
                                format!(
                                    "{what}: bytes {off}..{new_end} end past KernargSegmentSize {kss}"
                                ),
                            );
                        }
                    }
                }
                None => {
                    if end.is_some()
                        && a.size.is_some()
                        && a.align.is_some_and(u64::is_power_of_two)
                    {
                        self.report(
                            &ARG_OUT_OF_BOUNDS,
                            w.size.or(Some(w.map)),
                            format!("{what}: the argument's end overflows 64 bits"),
                        );
                    }
                    end = None;
                }
            }
            if let (Some(off), Some(size), Some(kind)) = (a.offset, a.size, a.kind()) {
                if kind != ValueKind::ByValue && matches!(size, 2 | 4 | 8) && off % size != 0 {
                    self.report(
                        &ARG_MISALIGNED,
                        w.align,
                        format!("{what}: offset {off} is not a multiple of its size {size}"),
                    );
                }
            }
        }
        self.hidden_layout(k, at, what);
    }

    pub(super) fn arg_kind_rules(&mut self, a: &ArgV2, w: &ArgAt, kind: ValueKind, what: &str) {
        use ValueKind as K;
        if a.pointee_align.is_some() && kind != K::DynamicSharedPointer {
            self.report(
                &ARG_KEY_KIND,
                w.pointee_align,
                format!("{what}: PointeeAlign on a {} argument", v2_name(kind)),
            );
        }
        let non_pointer = matches!(
            kind,
            K::ByValue | K::HiddenGlobalOffsetX | K::HiddenGlobalOffsetY | K::HiddenGlobalOffsetZ
        );
        if a.addr_space_qual.is_some() && non_pointer {
            self.report(
                &ARG_KEY_KIND,
                w.addr_space_qual,
                format!("{what}: AddrSpaceQual on a {} argument", v2_name(kind)),
            );
        }
        if a.is_pipe.is_some() && kind != K::Pipe {
            self.report(
                &ARG_KEY_KIND,
                w.is_pipe,
                format!("{what}: IsPipe on a {} argument", v2_name(kind)),
            );
        }
        let space = a.addr_space_qual.as_deref();
        let class = space.map(|s| Space::from_index(ADDR_SPACE_QUALS.iter().position(|q| *q == s)));
        if kind.wrong_space(class) {
            self.report(
                &ARG_ADDRESS_SPACE,
                w.addr_space_qual,
                format!(
                    "{what}: {} in address space {}",
                    v2_name(kind),
                    space.unwrap_or_default()
                ),
            );
        }
        let want = kind.pointer_size(class);
        if let (Some(want), Some(size)) = (want, a.size) {
            if size != want {
                self.report(
                    &ARG_KIND_SIZE,
                    w.size,
                    format!("{what}: {} of size {size}, expected {want}", v2_name(kind)),
                );
            }
        }
    }

    /// Checks hidden arguments against LLVM's slots: 8 bytes each, from
    /// the end of the explicit arguments rounded up to 8.
    pub(super) fn hidden_layout(&mut self, k: &KernelV2, at: &[ArgAt], what: &str) {
        let spans = k.args.iter().map(|a| (a.kind(), a.offset, a.size));
        let Some(base) = hidden_block_start(spans) else {
            return;
        };
        for (i, (a, w)) in k.args.iter().zip(at).enumerate() {
            let Some(kind) = a.kind().filter(|kd| kd.is_hidden()) else {
                continue;
            };
            if a.offset.is_none() {
                // The offset is unknown (an earlier argument is broken,
                // and reported); only the size can be checked.
                if a.size != Some(8) {
                    self.report(
                        &ARG_HIDDEN_LAYOUT,
                        Some(w.map),
                        format!(
                            "{what} arg {i}: {} of size {}, expected 8",
                            v2_name(kind),
                            a.size.map_or("?".to_owned(), |s| s.to_string())
                        ),
                    );
                }
                continue;
            }
            let slot = if kind == ValueKind::HiddenNone {
                // Any slot after the global offsets: it only reserves space.
                a.offset
                    .and_then(|o| o.checked_sub(base))
                    .filter(|s| s % 8 == 0 && *s >= 24)
                    .map(|s| (s, 8))
            } else {
                kind.hidden_slot(CodeObjectVersion::V2)
            };
            let want = slot.and_then(|(s, size)| Some((base.checked_add(s)?, size)));
            let ok = match (want, a.offset) {
                (Some((o, size)), Some(off)) => off == o && a.size == Some(size),
                _ => false,
            };
            if !ok {
                let expect = match want {
                    Some((o, size)) => format!("offset {o} and size {size}"),
                    None => format!(
                        "an 8-byte slot at or after offset {}",
                        base.saturating_add(24)
                    ),
                };
                self.report(
                    &ARG_HIDDEN_LAYOUT,
                    Some(w.map),
                    format!(
                        "{what} arg {i}: {} at offset {} size {}, expected {expect} (hidden arguments start at {base})",
                        v2_name(kind),
                        a.offset.map_or("?".to_owned(), |o| o.to_string()),
                        a.size.map_or("?".to_owned(), |s| s.to_string()),
                    ),
                );
            }
        }
    }
}
