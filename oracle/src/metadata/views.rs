//! Kernels and arguments as the rules see them, and what the notes of one
//! object share ([`Memo`]).

use super::*;

/// One kernel's metadata as the rules see it, borrowing strings from the
/// note; [`Kernel`] is its owned form.
pub(super) struct KernelView<'a> {
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) symbol: Option<Cow<'a, str>>,
    pub(super) language: Option<Cow<'a, str>>,
    pub(super) language_version: Option<[u64; 2]>,
    pub(super) reqd_workgroup_size: Option<[u64; 3]>,
    pub(super) workgroup_size_hint: Option<[u64; 3]>,
    pub(super) vec_type_hint: Option<Cow<'a, str>>,
    pub(super) device_enqueue_symbol: Option<Cow<'a, str>>,
    pub(super) kernarg_segment_size: Option<u64>,
    pub(super) group_segment_fixed_size: Option<u64>,
    pub(super) private_segment_fixed_size: Option<u64>,
    pub(super) kernarg_segment_align: Option<u64>,
    pub(super) wavefront_size: Option<u64>,
    pub(super) sgpr_count: Option<u64>,
    pub(super) vgpr_count: Option<u64>,
    pub(super) agpr_count: Option<u64>,
    pub(super) max_flat_workgroup_size: Option<u64>,
    pub(super) max_num_workgroups_x: Option<u64>,
    pub(super) max_num_workgroups_y: Option<u64>,
    pub(super) max_num_workgroups_z: Option<u64>,
    pub(super) sgpr_spill_count: Option<u64>,
    pub(super) vgpr_spill_count: Option<u64>,
    pub(super) kind: Option<Cow<'a, str>>,
    pub(super) uses_dynamic_stack: Option<bool>,
    pub(super) workgroup_processor_mode: Option<bool>,
    pub(super) uniform_work_group_size: Option<bool>,
    pub(super) cluster_dims: Option<[u64; 3]>,
    pub(super) other_keys: Vec<String>,
}

impl KernelView<'_> {
    pub(super) fn to_owned_kernel(&self, args: Vec<Arg>) -> Kernel {
        let s = |c: &Option<Cow<'_, str>>| c.as_deref().map(str::to_owned);
        Kernel {
            name: s(&self.name),
            symbol: s(&self.symbol),
            language: s(&self.language),
            language_version: self.language_version,
            args,
            reqd_workgroup_size: self.reqd_workgroup_size,
            workgroup_size_hint: self.workgroup_size_hint,
            vec_type_hint: s(&self.vec_type_hint),
            device_enqueue_symbol: s(&self.device_enqueue_symbol),
            kernarg_segment_size: self.kernarg_segment_size,
            group_segment_fixed_size: self.group_segment_fixed_size,
            private_segment_fixed_size: self.private_segment_fixed_size,
            kernarg_segment_align: self.kernarg_segment_align,
            wavefront_size: self.wavefront_size,
            sgpr_count: self.sgpr_count,
            vgpr_count: self.vgpr_count,
            agpr_count: self.agpr_count,
            max_flat_workgroup_size: self.max_flat_workgroup_size,
            max_num_workgroups_x: self.max_num_workgroups_x,
            max_num_workgroups_y: self.max_num_workgroups_y,
            max_num_workgroups_z: self.max_num_workgroups_z,
            sgpr_spill_count: self.sgpr_spill_count,
            vgpr_spill_count: self.vgpr_spill_count,
            kind: s(&self.kind),
            uses_dynamic_stack: self.uses_dynamic_stack,
            workgroup_processor_mode: self.workgroup_processor_mode,
            uniform_work_group_size: self.uniform_work_group_size,
            cluster_dims: self.cluster_dims,
            other_keys: self.other_keys.clone(),
        }
    }
}

/// One argument as the rules see it; [`Arg`] is its owned form. Strings
/// the rules do not read stay in the document (found through `nodes`).
#[derive(Clone)]
pub(super) struct ArgView<'a> {
    pub(super) size: Option<u64>,
    pub(super) offset: Option<u64>,
    pub(super) pointee_align: Option<u64>,
    pub(super) address_space: Option<&'a [u8]>,
    pub(super) is_const: Option<bool>,
    pub(super) is_restrict: Option<bool>,
    pub(super) is_volatile: Option<bool>,
    pub(super) is_pipe: Option<bool>,
    pub(super) other_keys: Vec<String>,
    /// `.value_kind` parsed, if it is one LLVM knows.
    pub(super) kind: Option<ValueKind>,
    /// Where each known key's value is (only values of the right kind).
    pub(super) nodes: Nodes<ARG_N>,
}

impl<'a> ArgView<'a> {
    pub(super) fn new() -> Self {
        ArgView {
            size: None,
            offset: None,
            pointee_align: None,
            address_space: None,
            is_const: None,
            is_restrict: None,
            is_volatile: None,
            is_pipe: None,
            other_keys: Vec::new(),
            kind: None,
            nodes: Nodes([NO_NODE; ARG_N]),
        }
    }

    /// Overwrites every field with the argument `af` holds.
    pub(super) fn fill(&mut self, af: &mut Fields<'a, ARG_N>) {
        self.size = af.uint(kdef!(arg ".size"));
        self.offset = af.uint(kdef!(arg ".offset"));
        self.pointee_align = af.uint(kdef!(arg ".pointee_align"));
        self.address_space = af.bytes(kdef!(arg ".address_space"));
        self.is_const = af.bool(kdef!(arg ".is_const"));
        self.is_restrict = af.bool(kdef!(arg ".is_restrict"));
        self.is_volatile = af.bool(kdef!(arg ".is_volatile"));
        self.is_pipe = af.bool(kdef!(arg ".is_pipe"));
        self.other_keys = std::mem::take(&mut af.other);
        // `.value_kind`'s allowed values are VALUE_KIND_NAMES, in the
        // order of ValueKind::ALL (tested).
        self.kind = af
            .value_index(kdef!(arg ".value_kind"))
            .and_then(|i| ValueKind::ALL.get(i).copied());
        self.nodes = af.nodes;
    }

    pub(super) fn kind(&self) -> Option<ValueKind> {
        self.kind
    }

    /// Whether known key `k` has a value of the right kind.
    pub(super) fn has(&self, k: usize) -> bool {
        self.nodes.get(k).is_some()
    }

    pub(super) fn to_owned_arg(&self, doc: &Flat<'_>) -> Arg {
        let s = |k: usize| {
            let b = self.nodes.get(k).and_then(|n| doc.raw(n)?.as_str_bytes());
            b.map(|b| lossy(b).into_owned())
        };
        Arg {
            name: s(kdef!(arg ".name")),
            type_name: s(kdef!(arg ".type_name")),
            size: self.size,
            offset: self.offset,
            value_kind: s(kdef!(arg ".value_kind")),
            value_type: s(kdef!(arg ".value_type")),
            pointee_align: self.pointee_align,
            address_space: s(kdef!(arg ".address_space")),
            access: s(kdef!(arg ".access")),
            actual_access: s(kdef!(arg ".actual_access")),
            is_const: self.is_const,
            is_restrict: self.is_restrict,
            is_volatile: self.is_volatile,
            is_pipe: self.is_pipe,
            other_keys: self.other_keys.clone(),
        }
    }
}

/// What the whole-object check needs of one metadata note: its kernels,
/// the root keys the notes of one object must agree on, and the owned
/// model when asked for.
pub(crate) struct Parts<'a> {
    /// `amdhsa.kernels`, in note order.
    pub kernels: Vec<KernelRef<'a>>,
    /// The root keys, for [`crate::notes::check_merge`].
    pub root: crate::notes::MetadataRoot,
    /// The owned model (full detail only).
    pub model: Option<Metadata>,
}

/// What the whole-object check needs of one metadata kernel, borrowing
/// from the note.
pub(crate) struct KernelRef<'a> {
    /// `.name`.
    pub name: Option<Cow<'a, str>>,
    /// `.symbol`.
    pub symbol: Option<Cow<'a, str>>,
    /// The values the descriptor is checked against.
    pub facts: crate::kd::MetadataFacts,
}

/// What the metadata notes of one object share, so that what was checked
/// in one note is not checked again in the next: Tensile objects carry one
/// note per kernel, thousands of them, with a handful of argument lists
/// and one target between them.
///
/// Argument lists are remembered by their encoded bytes (the `.args`
/// array and everything in it): a list whose bytes were seen before
/// decodes to the same items, so its argument views are taken from here
/// rather than checked key by key again. Only lists whose argument maps
/// broke no rule are kept, so nothing is left unreported; the argument
/// rules are skipped too when they found nothing but `.value_type` infos
/// for the same `.kernarg_segment_size` (the only kernel value they read),
/// and those infos are reported again. An `amdhsa.target` value whose
/// check found nothing is not checked again either.
#[derive(Default)]
pub(crate) struct Memo<'a> {
    /// Index in `lists` by encoded bytes.
    pub(super) index: HashMap<&'a [u8], usize, FastHash>,
    pub(super) lists: Vec<MemoList<'a>>,
    /// Argument views held in `lists`, at most [`Memo::MAX_ARGS`].
    pub(super) held: usize,
    /// An `amdhsa.target` value that broke no rule.
    pub(super) quiet_target: Option<&'a [u8]>,
    /// The remembered argument lists, decoded, for the next notes'
    /// decoding ([`msgpack::decode_flat_with`]).
    pub(super) templates: Vec<msgpack::Template<'a>>,
    /// The argument views of the kernel being checked, kept between notes
    /// for their allocation.
    pub(super) scratch: Vec<ArgView<'a>>,
}

/// One remembered argument list.
pub(super) struct MemoList<'a> {
    /// The views, their nodes relative to the list's node.
    pub(super) args: Vec<ArgView<'a>>,
    /// A `.kernarg_segment_size` for which the argument rules reported
    /// only the `.value_type` infos.
    pub(super) quiet_for: Option<Option<u64>>,
}

impl<'a> Memo<'a> {
    /// Views held at most (about 200 bytes each): real objects have a few
    /// hundred; hostile ones are checked key by key past this.
    pub(super) const MAX_ARGS: usize = 1 << 14;

    /// Argument lists kept as decoding templates at most: every array and
    /// map start is compared with each (Tensile objects have a handful).
    pub(super) const MAX_TEMPLATES: usize = 16;

    /// Remembers the views `args` of the list at node `list`, encoded as
    /// `bytes`, unless that would hold too many.
    pub(super) fn remember(
        &mut self,
        doc: &msgpack::Flat<'a>,
        bytes: &'a [u8],
        list: Node,
        args: &[ArgView<'a>],
    ) {
        if self.held + args.len() > Self::MAX_ARGS {
            return;
        }
        self.held += args.len();
        let args = args
            .iter()
            .map(|a| ArgView {
                nodes: a.nodes.relative_to(list),
                ..a.clone()
            })
            .collect();
        if self.templates.len() < Self::MAX_TEMPLATES {
            self.templates.extend(doc.template(list));
        }
        self.index.insert(bytes, self.lists.len());
        self.lists.push(MemoList {
            args,
            quiet_for: None,
        });
    }

    /// Records that the argument rules reported only `.value_type` infos
    /// for the list `bytes` with `.kernarg_segment_size` `kss`.
    pub(super) fn quiet(&mut self, bytes: &[u8], kss: Option<u64>) {
        if let Some(&i) = self.index.get(bytes) {
            if let Some(m) = self.lists.get_mut(i) {
                m.quiet_for = Some(kss);
            }
        }
    }
}
