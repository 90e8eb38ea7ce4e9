//! What a dispatch puts in memory, as data: the AQL kernel dispatch packet
//! (64 bytes), the HSA queue object (`hsa_queue_t`), the AMD queue object
//! that starts with it (`amd_queue_t`) and the AMD signal object
//! (`amd_signal_t`), for the 64-bit (large) model every AMDGPU code object
//! uses.
//!
//! The initial SGPRs point into these: Dispatch Ptr at the packet, Queue
//! Ptr at `amd_queue_t`, Kernarg Segment Ptr at the packet's
//! `kernarg_address` (hsa-code-object-abi-v0.40.txt, "Initial Kernel
//! Register State"; amdgpu-usage.rst, "Initial Kernel Execution State").
//! The queue and signal layouts are that document's "AMD Queue" and "AMD
//! Signal" tables, completed from ROCm's `amd_hsa_queue.h`: the document
//! stops the queue at `read_dispatch_id_field_base_byte_offset` and calls
//! the rest unused, where the runtime keeps the scratch set-up CP reads
//! (`compute_tmpring_size`, `scratch_resource_descriptor`, ...; errata
//! DISPATCH 1). `tests/dispatch_layout_hsa.rs` compiles a C program
//! against Debian's `hsa.h`, `amd_hsa_queue.h` and `amd_hsa_signal.h` and
//! checks every offset, size and bit position here.

/// One member of a structure: its name in the ROCm headers, its byte
/// offset and its size in bytes (arrays and nested structures whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Name in the headers (`workgroup_size_x`).
    pub name: &'static str,
    /// Byte offset from the start of the structure.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

const fn slot(name: &'static str, offset: usize, size: usize) -> Slot {
    Slot { name, offset, size }
}

/// Size of an AQL packet, and of `hsa_kernel_dispatch_packet_t`.
pub const PACKET_SIZE: usize = 64;

/// `hsa_kernel_dispatch_packet_t`, in order.
pub static KERNEL_DISPATCH_PACKET: &[Slot] = &[
    slot("header", 0, 2),
    slot("setup", 2, 2),
    slot("workgroup_size_x", 4, 2),
    slot("workgroup_size_y", 6, 2),
    slot("workgroup_size_z", 8, 2),
    slot("reserved0", 10, 2),
    slot("grid_size_x", 12, 4),
    slot("grid_size_y", 16, 4),
    slot("grid_size_z", 20, 4),
    slot("private_segment_size", 24, 4),
    slot("group_segment_size", 28, 4),
    slot("kernel_object", 32, 8),
    slot("kernarg_address", 40, 8),
    slot("reserved2", 48, 8),
    slot("completion_signal", 56, 8),
];

/// Size of `hsa_queue_t`.
pub const HSA_QUEUE_SIZE: usize = 40;

/// `hsa_queue_t`, in order.
pub static HSA_QUEUE: &[Slot] = &[
    slot("type", 0, 4),
    slot("features", 4, 4),
    slot("base_address", 8, 8),
    slot("doorbell_signal", 16, 8),
    slot("size", 24, 4),
    slot("reserved1", 28, 4),
    slot("id", 32, 8),
];

/// Size of `amd_queue_t`.
pub const AMD_QUEUE_SIZE: usize = 256;
/// Alignment of `amd_queue_t` and `amd_signal_t`: CP fetches them by
/// cache line.
pub const AMD_OBJECT_ALIGN: usize = 64;

/// `amd_queue_t`, in order (`hsa_queue` is [`HSA_QUEUE`]).
pub static AMD_QUEUE: &[Slot] = &[
    slot("hsa_queue", 0, HSA_QUEUE_SIZE),
    slot("reserved1", 40, 16),
    slot("write_dispatch_id", 56, 8),
    slot("group_segment_aperture_base_hi", 64, 4),
    slot("private_segment_aperture_base_hi", 68, 4),
    slot("max_cu_id", 72, 4),
    slot("max_wave_id", 76, 4),
    slot("max_legacy_doorbell_dispatch_id_plus_1", 80, 8),
    slot("legacy_doorbell_lock", 88, 4),
    slot("reserved2", 92, 36),
    slot("read_dispatch_id", 128, 8),
    slot("read_dispatch_id_field_base_byte_offset", 136, 4),
    slot("compute_tmpring_size", 140, 4),
    slot("scratch_resource_descriptor", 144, 16),
    slot("scratch_backing_memory_location", 160, 8),
    slot("scratch_backing_memory_byte_size", 168, 8),
    slot("scratch_wave64_lane_byte_size", 176, 4),
    slot("queue_properties", 180, 4),
    slot("reserved3", 184, 8),
    slot("queue_inactive_signal", 192, 8),
    slot("reserved4", 200, 56),
];

/// Size of `amd_signal_t`.
pub const AMD_SIGNAL_SIZE: usize = 64;

/// `amd_signal_t`, in order (`value` shares its 8 bytes with the doorbell
/// pointers, `queue_ptr` with `reserved2`).
pub static AMD_SIGNAL: &[Slot] = &[
    slot("kind", 0, 8),
    slot("value", 8, 8),
    slot("event_mailbox_ptr", 16, 8),
    slot("event_id", 24, 4),
    slot("reserved1", 28, 4),
    slot("start_ts", 32, 8),
    slot("end_ts", 40, 8),
    slot("queue_ptr", 48, 8),
    slot("reserved3", 56, 8),
];

/// A bit field of a packet member: name (as `hsa.h` spells it without
/// its prefix), lowest bit and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    /// Name (`TYPE`, `BARRIER`, ...).
    pub name: &'static str,
    /// Lowest bit.
    pub shift: u32,
    /// Width in bits.
    pub width: u32,
}

impl Bits {
    /// The field's value in `word`.
    pub const fn get(&self, word: u16) -> u16 {
        (word >> self.shift) & ((1 << self.width) - 1)
    }
    /// `word` with the field set to `value` (its low `width` bits).
    pub const fn set(&self, word: u16, value: u16) -> u16 {
        let m = ((1 << self.width) - 1) << self.shift;
        (word & !m) | ((value << self.shift) & m)
    }
}

/// The packet header's fields (`hsa_packet_header_t`).
pub mod header {
    use super::Bits;
    /// Packet type (`hsa_packet_type_t`).
    pub const TYPE: Bits = Bits {
        name: "TYPE",
        shift: 0,
        width: 8,
    };
    /// Barrier bit: the packet waits for the ones before it.
    pub const BARRIER: Bits = Bits {
        name: "BARRIER",
        shift: 8,
        width: 1,
    };
    /// Acquire fence scope (`hsa_fence_scope_t`).
    pub const SCACQUIRE_FENCE_SCOPE: Bits = Bits {
        name: "SCACQUIRE_FENCE_SCOPE",
        shift: 9,
        width: 2,
    };
    /// Release fence scope (`hsa_fence_scope_t`).
    pub const SCRELEASE_FENCE_SCOPE: Bits = Bits {
        name: "SCRELEASE_FENCE_SCOPE",
        shift: 11,
        width: 2,
    };
    /// Every header field, in bit order.
    pub const ALL: [Bits; 4] = [TYPE, BARRIER, SCACQUIRE_FENCE_SCOPE, SCRELEASE_FENCE_SCOPE];
    /// `HSA_PACKET_TYPE_KERNEL_DISPATCH`.
    pub const TYPE_KERNEL_DISPATCH: u16 = 2;
    /// `HSA_FENCE_SCOPE_NONE`, `_AGENT`, `_SYSTEM`.
    pub const FENCE_SCOPES: [(u16, &str); 3] = [(0, "none"), (1, "agent"), (2, "system")];
}

/// The kernel dispatch packet's `setup` field: the grid's dimensions
/// (`HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS`).
pub const SETUP_DIMENSIONS: Bits = Bits {
    name: "DIMENSIONS",
    shift: 0,
    width: 2,
};

/// `amd_queue_t.queue_properties` bits (`amd_queue_properties_t`).
pub static QUEUE_PROPERTIES: &[(&str, u32, u32)] = &[
    ("ENABLE_TRAP_HANDLER", 0, 1),
    ("IS_PTR64", 1, 1),
    ("ENABLE_TRAP_HANDLER_DEBUG_SGPRS", 2, 1),
    ("ENABLE_PROFILING", 3, 1),
    ("USE_SCRATCH_ONCE", 4, 1),
];

/// `amd_signal_t.kind` values (`amd_signal_kind_t`).
pub static SIGNAL_KINDS: &[(i64, &str)] = &[
    (0, "AMD_SIGNAL_KIND_INVALID"),
    (1, "AMD_SIGNAL_KIND_USER"),
    (-1, "AMD_SIGNAL_KIND_DOORBELL"),
    (-2, "AMD_SIGNAL_KIND_LEGACY_DOORBELL"),
];

/// The member `name` of `table`.
pub fn find(table: &'static [Slot], name: &str) -> Option<&'static Slot> {
    table.iter().find(|s| s.name == name)
}

/// A kernel dispatch packet, decoded field by field ([`KERNEL_DISPATCH_PACKET`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDispatchPacket {
    /// `header`: type, barrier, fence scopes ([`header`]).
    pub header: u16,
    /// `setup`: the grid's dimensions ([`SETUP_DIMENSIONS`]).
    pub setup: u16,
    /// Work-group size in work-items, X, Y, Z.
    pub workgroup_size: [u16; 3],
    /// `reserved0`, 0.
    pub reserved0: u16,
    /// Grid size in work-items, X, Y, Z.
    pub grid_size: [u32; 3],
    /// Bytes of private memory per work-item.
    pub private_segment_size: u32,
    /// Bytes of group memory per work-group.
    pub group_segment_size: u32,
    /// Address of the kernel descriptor.
    pub kernel_object: u64,
    /// Address of the kernel arguments.
    pub kernarg_address: u64,
    /// `reserved2`, 0.
    pub reserved2: u64,
    /// Completion signal handle (an `amd_signal_t` address), 0 for none.
    pub completion_signal: u64,
}

fn at(name: &str) -> usize {
    // Every name used here is a row of the table (a test reads them all).
    find(KERNEL_DISPATCH_PACKET, name).map_or(0, |s| s.offset)
}

fn le(b: &[u8; PACKET_SIZE], name: &str, size: usize) -> u64 {
    let o = at(name);
    b[o..o + size]
        .iter()
        .rev()
        .fold(0u64, |v, &x| (v << 8) | u64::from(x))
}

fn put(b: &mut [u8; PACKET_SIZE], name: &str, size: usize, v: u64) {
    let o = at(name);
    b[o..o + size].copy_from_slice(&v.to_le_bytes()[..size]);
}

impl KernelDispatchPacket {
    /// Decodes the 64 bytes of a packet.
    pub fn parse(b: &[u8; PACKET_SIZE]) -> Self {
        let u16_of = |n| le(b, n, 2) as u16;
        let u32_of = |n| le(b, n, 4) as u32;
        Self {
            header: u16_of("header"),
            setup: u16_of("setup"),
            workgroup_size: [
                u16_of("workgroup_size_x"),
                u16_of("workgroup_size_y"),
                u16_of("workgroup_size_z"),
            ],
            reserved0: u16_of("reserved0"),
            grid_size: [
                u32_of("grid_size_x"),
                u32_of("grid_size_y"),
                u32_of("grid_size_z"),
            ],
            private_segment_size: u32_of("private_segment_size"),
            group_segment_size: u32_of("group_segment_size"),
            kernel_object: le(b, "kernel_object", 8),
            kernarg_address: le(b, "kernarg_address", 8),
            reserved2: le(b, "reserved2", 8),
            completion_signal: le(b, "completion_signal", 8),
        }
    }

    /// The packet's 64 bytes.
    pub fn to_bytes(&self) -> [u8; PACKET_SIZE] {
        let mut b = [0u8; PACKET_SIZE];
        put(&mut b, "header", 2, self.header.into());
        put(&mut b, "setup", 2, self.setup.into());
        for (n, v) in ["workgroup_size_x", "workgroup_size_y", "workgroup_size_z"]
            .iter()
            .zip(self.workgroup_size)
        {
            put(&mut b, n, 2, v.into());
        }
        put(&mut b, "reserved0", 2, self.reserved0.into());
        for (n, v) in ["grid_size_x", "grid_size_y", "grid_size_z"]
            .iter()
            .zip(self.grid_size)
        {
            put(&mut b, n, 4, v.into());
        }
        put(
            &mut b,
            "private_segment_size",
            4,
            self.private_segment_size.into(),
        );
        put(
            &mut b,
            "group_segment_size",
            4,
            self.group_segment_size.into(),
        );
        put(&mut b, "kernel_object", 8, self.kernel_object);
        put(&mut b, "kernarg_address", 8, self.kernarg_address);
        put(&mut b, "reserved2", 8, self.reserved2);
        put(&mut b, "completion_signal", 8, self.completion_signal);
        b
    }

    /// The grid's dimensions, 1 to 3 (0 is not a valid setup).
    pub fn dimensions(&self) -> u16 {
        SETUP_DIMENSIONS.get(self.setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Each table tiles its structure: members in order, no gap, no
    /// overlap, ending at the structure's size.
    #[test]
    fn tables_tile_their_structures() {
        for (table, size) in [
            (KERNEL_DISPATCH_PACKET, PACKET_SIZE),
            (HSA_QUEUE, HSA_QUEUE_SIZE),
            (AMD_QUEUE, AMD_QUEUE_SIZE),
            (AMD_SIGNAL, AMD_SIGNAL_SIZE),
        ] {
            let mut next = 0;
            for s in table {
                assert_eq!(s.offset, next, "{}", s.name);
                next += s.size;
            }
            assert_eq!(next, size);
        }
        assert_eq!(AMD_QUEUE_SIZE % AMD_OBJECT_ALIGN, 0);
        assert_eq!(AMD_SIGNAL_SIZE % AMD_OBJECT_ALIGN, 0);
    }

    /// The document's fixed points: write_dispatch_id at bit 448,
    /// read_dispatch_id at bit 1024 of amd_queue_t; queue_ptr at bits
    /// 448:384 of amd_signal_t.
    #[test]
    fn document_offsets_hold() {
        assert_eq!(
            find(AMD_QUEUE, "write_dispatch_id").map(|s| s.offset * 8),
            Some(448)
        );
        assert_eq!(
            find(AMD_QUEUE, "read_dispatch_id").map(|s| s.offset * 8),
            Some(1024)
        );
        assert_eq!(
            find(AMD_SIGNAL, "queue_ptr").map(|s| s.offset * 8),
            Some(384)
        );
    }

    #[test]
    fn header_fields_set_and_get() {
        let h = header::TYPE.set(0, header::TYPE_KERNEL_DISPATCH);
        let h = header::BARRIER.set(h, 1);
        let h = header::SCACQUIRE_FENCE_SCOPE.set(h, 2);
        let h = header::SCRELEASE_FENCE_SCOPE.set(h, 2);
        assert_eq!(h, 0x1502);
        assert_eq!(header::SCACQUIRE_FENCE_SCOPE.get(h), 2);
    }

    proptest! {
        #[test]
        fn packets_round_trip(bytes in proptest::collection::vec(any::<u8>(), PACKET_SIZE)) {
            let b: [u8; PACKET_SIZE] = bytes.try_into().expect("64 bytes");
            let p = KernelDispatchPacket::parse(&b);
            prop_assert_eq!(p.to_bytes(), b);
            prop_assert_eq!(KernelDispatchPacket::parse(&p.to_bytes()), p);
        }
    }
}
