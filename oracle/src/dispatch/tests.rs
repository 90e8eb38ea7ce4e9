use super::*;
use crate::layout::dispatch::find;
use crate::rules::Rule;
use crate::targets::{self, TARGETS};
use proptest::prelude::*;

/// A kernel and a launch of it that HIP accepts.
#[derive(Debug, Clone)]
struct Case {
    desc: KernelDescriptor,
    md: KernelMetadata,
    target: &'static Target,
    launch: Launch,
}

impl Case {
    fn kernel(&self) -> Kernel<'_> {
        Kernel {
            descriptor: &self.desc,
            target: self.target,
            metadata: Some(&self.md),
        }
    }
    fn packet(&self) -> KernelDispatchPacket {
        runtime_packet(&self.kernel(), &self.launch)
    }
    fn findings(&self, p: &KernelDispatchPacket) -> Vec<&'static str> {
        let mut sink = Sink::new();
        check(p, &self.kernel(), &mut sink);
        sink.violations.iter().map(|v| v.rule.id).collect()
    }
}

fn base() -> Case {
    let desc = KernelDescriptor {
        group_segment_fixed_size: 256,
        private_segment_fixed_size: 32,
        kernarg_size: 24,
        ..Default::default()
    };
    let md = KernelMetadata {
        max_flat_workgroup_size: Some(256),
        group_segment_fixed_size: Some(256),
        private_segment_fixed_size: Some(32),
        kernarg_segment_size: Some(24),
        kernarg_segment_align: Some(8),
        ..Default::default()
    };
    Case {
        desc,
        md,
        target: targets::by_name("gfx90a").expect("gfx90a"),
        launch: Launch {
            shape: Shape {
                grid: [128, 2, 1],
                workgroup: [64, 2, 1],
            },
            kernel_object: 0x7f00_0000_1000,
            kernarg_address: 0x7f00_0002_0000,
            completion_signal: 0x7f00_0003_0040,
        },
    }
}

/// The fence scope value `hsa_fence_scope_t` does not define.
fn bad_scope() -> u16 {
    (0..4)
        .find(|v| !header::FENCE_SCOPES.iter().any(|(s, _)| s == v))
        .expect("a 2-bit field has a value left")
}

/// Breaks the base packet (or its kernel) with `edit` and checks that
/// exactly `rule` fires, once.
fn only(rule: &Rule, edit: impl FnOnce(&mut Case, &mut KernelDispatchPacket)) {
    let mut c = base();
    let mut p = c.packet();
    assert!(c.findings(&p).is_empty(), "{:?}", c.findings(&p));
    edit(&mut c, &mut p);
    assert_eq!(c.findings(&p), vec![rule.id]);
}

macro_rules! breaks_only {
    ($($name:ident: $rule:ident => |$c:ident, $p:ident| $body:block)*) => {
        $(
            #[test]
            fn $name() {
                #[allow(unused_variables)]
                only(&$rule, |$c: &mut Case, $p: &mut KernelDispatchPacket| $body);
            }
        )*
        /// The rules the tests above break, in order.
        static TESTED: &[&Rule] = &[$(&$rule),*];
    };
}

breaks_only! {
    header_type: HEADER_TYPE => |c, p| {
        p.header = header::TYPE.set(p.header, header::TYPE_KERNEL_DISPATCH + 1);
    }
    header_barrier: HEADER_BARRIER => |c, p| {
        p.header = header::BARRIER.set(p.header, 0);
    }
    header_acquire_fence_scope: HEADER_ACQUIRE_FENCE_SCOPE => |c, p| {
        p.header = header::SCACQUIRE_FENCE_SCOPE.set(p.header, bad_scope());
    }
    header_release_fence_scope: HEADER_RELEASE_FENCE_SCOPE => |c, p| {
        p.header = header::SCRELEASE_FENCE_SCOPE.set(p.header, bad_scope());
    }
    setup_dimensions: SETUP_DIMENSIONS_RULE => |c, p| {
        p.setup = SETUP_DIMENSIONS.set(p.setup, 0);
    }
    unused_dimension: UNUSED_DIMENSION => |c, p| {
        // Two dimensions; Z is 1 in the work-group and 2 in the grid.
        p.setup = SETUP_DIMENSIONS.set(p.setup, 2);
        p.grid_size[2] = 2;
    }
    workgroup_size_zero: WORKGROUP_SIZE_ZERO => |c, p| {
        p.workgroup_size[2] = 0;
    }
    grid_size_zero: GRID_SIZE_ZERO => |c, p| {
        p.grid_size[1] = 0;
    }
    grid_smaller_than_workgroup: GRID_SMALLER_THAN_WORKGROUP => |c, p| {
        p.grid_size[0] = u32::from(p.workgroup_size[0]) - 1;
    }
    workgroup_size_max: WORKGROUP_SIZE_MAX => |c, p| {
        // No launch bound in the metadata: only the agent's limit holds.
        c.md.max_flat_workgroup_size = None;
        let y = (MAX_WORKGROUP_SIZE / u64::from(p.workgroup_size[0]) + 1) as u16;
        p.workgroup_size[1] = y;
        p.grid_size[1] = u32::from(y);
    }
    workgroup_size_max_flat: WORKGROUP_SIZE_MAX_FLAT => |c, p| {
        let max = c.md.max_flat_workgroup_size.unwrap();
        p.workgroup_size = [(max + 1) as u16, 1, 1];
        p.grid_size = [max as u32 + 1, 1, 1];
    }
    workgroup_size_reqd: WORKGROUP_SIZE_REQD => |c, p| {
        let mut r = p.workgroup_size.map(u64::from);
        r[0] /= 2;
        c.md.reqd_workgroup_size = Some(r);
    }
    grid_uniform: GRID_UNIFORM => |c, p| {
        c.md.uniform_work_group_size = Some(true);
        p.grid_size[0] = u32::from(p.workgroup_size[0]) * 2 + 1;
    }
    group_segment_fixed: GROUP_SEGMENT_FIXED => |c, p| {
        p.group_segment_size = c.kernel().group_segment_fixed_size() as u32 - 1;
    }
    group_segment_lds_limit: GROUP_SEGMENT_LDS => |c, p| {
        p.group_segment_size = c.target.lds_bytes + 1;
    }
    private_segment_fixed: PRIVATE_SEGMENT_FIXED => |c, p| {
        p.private_segment_size = c.kernel().private_segment_fixed_size() as u32 - 1;
    }
    kernel_object_null: KERNEL_OBJECT_NULL => |c, p| {
        p.kernel_object = 0;
    }
    kernel_object_align: KERNEL_OBJECT_ALIGN => |c, p| {
        p.kernel_object += KERNEL_OBJECT_ALIGN_BYTES / 2;
    }
    kernarg_address_null: KERNARG_ADDRESS_NULL => |c, p| {
        p.kernarg_address = 0;
    }
    kernarg_address_align: KERNARG_ADDRESS_ALIGN => |c, p| {
        p.kernarg_address += c.kernel().kernarg_align() / 2;
    }
    completion_signal_align: COMPLETION_SIGNAL_ALIGN => |c, p| {
        p.completion_signal += AMD_OBJECT_ALIGN as u64 / 2;
    }
    reserved: RESERVED => |c, p| {
        p.reserved2 = 1;
    }
}

#[test]
fn every_rule_has_a_test_that_breaks_only_it() {
    let tested: Vec<&str> = TESTED.iter().map(|r| r.id).collect();
    let declared: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(tested, declared);
}

#[test]
fn message_field_names_are_layout_rows() {
    for n in WORKGROUP_SIZE.iter().chain(&GRID_SIZE) {
        assert!(find(KERNEL_DISPATCH_PACKET, n).is_some(), "{n}");
    }
}

#[test]
fn hip_header_is_a_barrier_kernel_dispatch_with_agent_fences() {
    assert_eq!(header::TYPE.get(HIP_HEADER), header::TYPE_KERNEL_DISPATCH);
    assert_eq!(header::BARRIER.get(HIP_HEADER), 1);
    for f in [header::SCACQUIRE_FENCE_SCOPE, header::SCRELEASE_FENCE_SCOPE] {
        assert_eq!(scope_name(f.get(HIP_HEADER)), "agent");
    }
    // Nothing outside the four fields.
    let fields = header::ALL
        .iter()
        .fold(0u16, |h, b| b.set(h, b.get(HIP_HEADER)));
    assert_eq!(fields, HIP_HEADER);
}

#[test]
fn what_the_rules_allow() {
    let c = base();
    // No completion signal.
    let mut p = c.packet();
    p.completion_signal = 0;
    assert!(c.findings(&p).is_empty());
    // A partial last work-group.
    let mut p = c.packet();
    p.grid_size[0] = u32::from(p.workgroup_size[0]) * 2 + 1;
    assert!(c.findings(&p).is_empty());
    // One dimension, the others 1.
    let mut p = c.packet();
    p.setup = SETUP_DIMENSIONS.set(0, 1);
    p.workgroup_size = [64, 1, 1];
    p.grid_size = [64, 1, 1];
    assert!(c.findings(&p).is_empty());
    // No kernarg segment, no kernarg address.
    let mut c = base();
    c.desc.kernarg_size = 0;
    c.md.kernarg_segment_size = Some(0);
    let mut p = c.packet();
    p.kernarg_address = 0;
    assert!(c.findings(&p).is_empty());
    // A dynamic stack: the packet may hold less than the fixed size.
    let mut c = base();
    c.desc.kernel_code_properties =
        crate::layout::USES_DYNAMIC_STACK.set(c.desc.kernel_code_properties.into(), 1) as u16;
    let mut p = c.packet();
    p.private_segment_size = 0;
    assert!(c.findings(&p).is_empty());
}

#[test]
fn hip_shrinks_a_block_larger_than_the_grid_and_sizes_the_dynamic_stack() {
    let mut c = base();
    c.launch.shape.grid[0] = 40;
    let p = c.packet();
    assert_eq!(p.workgroup_size[0], 40);
    assert!(c.findings(&p).is_empty());
    c.md.uses_dynamic_stack = Some(true);
    assert_eq!(c.packet().private_segment_size, HIP_DEFAULT_STACK_BYTES);
    c.desc.private_segment_fixed_size = HIP_MAX_DYNAMIC_PRIVATE_BYTES + 4;
    assert_eq!(
        c.packet().private_segment_size,
        HIP_MAX_DYNAMIC_PRIVATE_BYTES
    );
}

#[test]
fn default_shapes() {
    let mut c = base();
    c.md.reqd_workgroup_size = Some([8, 4, 2]);
    let (s, _) = default_shape(&c.kernel());
    assert_eq!(s.workgroup, [8, 4, 2]);
    assert_eq!(s.grid, [8, 4, 2]);
    c.md.reqd_workgroup_size = Some([0, 0, 0]);
    let (s, _) = default_shape(&c.kernel());
    let max = c.md.max_flat_workgroup_size.unwrap() as u16;
    assert_eq!(s.workgroup, [max, 1, 1]);
    c.md.max_flat_workgroup_size = None;
    let (s, _) = default_shape(&c.kernel());
    assert_eq!(s.workgroup, [64, 1, 1]);
    let gfx1100 = targets::by_name("gfx1100").unwrap();
    c.target = gfx1100;
    c.desc.kernel_code_properties =
        crate::layout::ENABLE_WAVEFRONT_SIZE32.set(c.desc.kernel_code_properties.into(), 1) as u16;
    assert_eq!(default_shape(&c.kernel()).0.workgroup, [32, 1, 1]);
}

#[test]
fn view_lists_every_member_in_layout_order() {
    let c = base();
    let v = view(&c.kernel());
    let names: Vec<&str> = v.fields.iter().map(|f| f.name).collect();
    let layout: Vec<&str> = KERNEL_DISPATCH_PACKET.iter().map(|s| s.name).collect();
    assert_eq!(names, layout);
    assert!(v.violations.is_empty(), "{:?}", v.violations);
    let value = |n: &str| v.fields.iter().find(|f| f.name == n).unwrap().value;
    assert_eq!(value("header"), Some(u64::from(HIP_HEADER)));
    assert_eq!(value("kernel_object"), None);
    assert_eq!(
        value("group_segment_size"),
        Some(c.kernel().group_segment_fixed_size())
    );
    // A kernel whose LDS the target cannot give is not launchable so.
    let mut c = base();
    c.desc.group_segment_fixed_size = c.target.lds_bytes + 1;
    let v = view(&c.kernel());
    assert_eq!(v.violations.len(), 1);
    assert!(v.violations[0].starts_with(GROUP_SEGMENT_LDS.id));
}

/// Targets with an HSA LDS limit.
fn hsa_target() -> impl Strategy<Value = &'static Target> {
    let ts: Vec<&'static Target> = TARGETS
        .iter()
        .filter(|t| t.hsa && t.lds_bytes > 0)
        .collect();
    proptest::sample::select(ts)
}

prop_compose! {
    /// A kernel and a launch HIP accepts: non-zero sizes, a work-group
    /// within the kernel's bound and the agent's, the required size if
    /// any, a uniform grid if asked, LDS within the target's, aligned
    /// addresses.
    fn accepted()(
        target in hsa_target(),
        // At most 16 * 8 * 8 = 1024 work-items.
        wg in (1u16..=16, 1u16..=8, 1u16..=8).prop_map(|(x, y, z)| [x, y, z]),
        groups in prop::array::uniform3(1u32..=64),
        extra in prop::array::uniform3(0u32..=15),
        slack in 0u64..=512,
        reqd in any::<bool>(),
        uniform in any::<bool>(),
        with_md in any::<bool>(),
        lds_share in 0.0f64..=1.0,
        private in 0u32..=100_000,
        kernarg in 0u32..=4096,
        align_log in 0u32..=8,
        dynamic_stack in any::<bool>(),
        ko in 1u64..(1 << 40),
        ka in 1u64..(1 << 40),
        signal in prop::option::of(1u64..(1 << 40)),
    ) -> Case {
        let flat: u64 = wg.iter().map(|&w| u64::from(w)).product();
        let mut desc = KernelDescriptor {
            group_segment_fixed_size: (f64::from(target.lds_bytes) * lds_share) as u32,
            private_segment_fixed_size: private,
            kernarg_size: kernarg,
            ..Default::default()
        };
        if dynamic_stack {
            desc.kernel_code_properties = crate::layout::USES_DYNAMIC_STACK
                .set(0, 1) as u16;
        }
        let align = 1u64 << align_log;
        let md = KernelMetadata {
            max_flat_workgroup_size: Some((flat + slack).min(MAX_WORKGROUP_SIZE)),
            reqd_workgroup_size: reqd.then(|| wg.map(u64::from)),
            uniform_work_group_size: uniform.then_some(true),
            group_segment_fixed_size: Some(desc.group_segment_fixed_size.into()),
            private_segment_fixed_size: Some(private.into()),
            kernarg_segment_size: Some(kernarg.into()),
            kernarg_segment_align: Some(align),
            uses_dynamic_stack: Some(dynamic_stack),
        };
        // A uniform grid is whole work-groups; otherwise a partial last one.
        let grid = std::array::from_fn(|d| {
            let whole = u32::from(wg[d]) * groups[d];
            if uniform { whole } else { whole + extra[d] % u32::from(wg[d]) }
        });
        let mut c = Case {
            desc,
            md,
            target,
            launch: Launch {
                shape: Shape { grid, workgroup: wg },
                kernel_object: ko * KERNEL_OBJECT_ALIGN_BYTES,
                kernarg_address: 0,
                completion_signal: signal.map_or(0, |s| s * AMD_OBJECT_ALIGN as u64),
            },
        };
        c.launch.kernarg_address = ka * c.kernel().kernarg_align();
        if !with_md {
            c.md = KernelMetadata::default();
        }
        c
    }
}

proptest! {
    #[test]
    fn the_runtime_packet_keeps_every_rule(c in accepted()) {
        let p = c.packet();
        prop_assert!(c.findings(&p).is_empty(), "{:?} for {:?}", c.findings(&p), p);
        // And without the metadata (the descriptor's facts alone).
        let k = Kernel { metadata: None, ..c.kernel() };
        let mut sink = Sink::new();
        check(&runtime_packet(&k, &c.launch), &k, &mut sink);
        prop_assert!(sink.violations.is_empty());
    }

    #[test]
    fn any_packet_and_kernel_are_judged_without_panicking(
        packet in prop::collection::vec(any::<u8>(), PACKET_SIZE),
        kd in prop::collection::vec(any::<u8>(), crate::kd::KD_SIZE),
        target in proptest::sample::select(targets::all_targets().collect::<Vec<_>>()),
        md in any::<(Option<u64>, Option<[u64; 3]>, Option<bool>, Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<bool>)>(),
        launch in any::<([u32; 3], [u16; 3], u64, u64, u64)>(),
    ) {
        let p = KernelDispatchPacket::parse(&packet.try_into().unwrap());
        let desc = KernelDescriptor::from_slice(&kd).unwrap();
        let md = KernelMetadata {
            max_flat_workgroup_size: md.0,
            reqd_workgroup_size: md.1,
            uniform_work_group_size: md.2,
            group_segment_fixed_size: md.3,
            private_segment_fixed_size: md.4,
            kernarg_segment_size: md.5,
            kernarg_segment_align: md.6,
            uses_dynamic_stack: md.7,
        };
        for metadata in [None, Some(&md)] {
            let k = Kernel { descriptor: &desc, target, metadata };
            let mut sink = Sink::new();
            check(&p, &k, &mut sink);
            let v = view(&k);
            prop_assert_eq!(v.fields.len(), KERNEL_DISPATCH_PACKET.len());
            let (grid, workgroup, kernel_object, kernarg_address, completion_signal) = launch;
            let launch = Launch {
                shape: Shape { grid, workgroup },
                kernel_object,
                kernarg_address,
                completion_signal,
            };
            check(&runtime_packet(&k, &launch), &k, &mut sink);
        }
    }
}
