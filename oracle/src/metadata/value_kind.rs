//! The `.value_kind` values of kernel arguments, and where LLVM places the
//! hidden ones.

use super::*;

/// Every `.value_kind` LLVM's verifier accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // The variants are the wire names, documented by `as_str`.
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
}

impl ValueKind {
    /// All kinds, V3 ones first.
    pub const ALL: [ValueKind; 31] = [
        Self::ByValue,
        Self::GlobalBuffer,
        Self::DynamicSharedPointer,
        Self::Sampler,
        Self::Image,
        Self::Pipe,
        Self::Queue,
        Self::HiddenGlobalOffsetX,
        Self::HiddenGlobalOffsetY,
        Self::HiddenGlobalOffsetZ,
        Self::HiddenNone,
        Self::HiddenPrintfBuffer,
        Self::HiddenHostcallBuffer,
        Self::HiddenDefaultQueue,
        Self::HiddenCompletionAction,
        Self::HiddenMultigridSyncArg,
        Self::HiddenBlockCountX,
        Self::HiddenBlockCountY,
        Self::HiddenBlockCountZ,
        Self::HiddenGroupSizeX,
        Self::HiddenGroupSizeY,
        Self::HiddenGroupSizeZ,
        Self::HiddenRemainderX,
        Self::HiddenRemainderY,
        Self::HiddenRemainderZ,
        Self::HiddenGridDims,
        Self::HiddenHeapV1,
        Self::HiddenDynamicLdsSize,
        Self::HiddenPrivateBase,
        Self::HiddenSharedBase,
        Self::HiddenQueuePtr,
    ];

    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ByValue => "by_value",
            Self::GlobalBuffer => "global_buffer",
            Self::DynamicSharedPointer => "dynamic_shared_pointer",
            Self::Sampler => "sampler",
            Self::Image => "image",
            Self::Pipe => "pipe",
            Self::Queue => "queue",
            Self::HiddenGlobalOffsetX => "hidden_global_offset_x",
            Self::HiddenGlobalOffsetY => "hidden_global_offset_y",
            Self::HiddenGlobalOffsetZ => "hidden_global_offset_z",
            Self::HiddenNone => "hidden_none",
            Self::HiddenPrintfBuffer => "hidden_printf_buffer",
            Self::HiddenHostcallBuffer => "hidden_hostcall_buffer",
            Self::HiddenDefaultQueue => "hidden_default_queue",
            Self::HiddenCompletionAction => "hidden_completion_action",
            Self::HiddenMultigridSyncArg => "hidden_multigrid_sync_arg",
            Self::HiddenBlockCountX => "hidden_block_count_x",
            Self::HiddenBlockCountY => "hidden_block_count_y",
            Self::HiddenBlockCountZ => "hidden_block_count_z",
            Self::HiddenGroupSizeX => "hidden_group_size_x",
            Self::HiddenGroupSizeY => "hidden_group_size_y",
            Self::HiddenGroupSizeZ => "hidden_group_size_z",
            Self::HiddenRemainderX => "hidden_remainder_x",
            Self::HiddenRemainderY => "hidden_remainder_y",
            Self::HiddenRemainderZ => "hidden_remainder_z",
            Self::HiddenGridDims => "hidden_grid_dims",
            Self::HiddenHeapV1 => "hidden_heap_v1",
            Self::HiddenDynamicLdsSize => "hidden_dynamic_lds_size",
            Self::HiddenPrivateBase => "hidden_private_base",
            Self::HiddenSharedBase => "hidden_shared_base",
            Self::HiddenQueuePtr => "hidden_queue_ptr",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<ValueKind> {
        // VALUE_KIND_NAMES lists the kinds in the order of ALL (made so).
        Self::ALL
            .get(bytes_index(VALUE_KIND_NAMES, s.as_bytes())?)
            .copied()
    }

    /// True for the `hidden_*` kinds, which the runtime fills in.
    pub fn is_hidden(self) -> bool {
        self.as_str().starts_with("hidden_")
    }

    /// True for the kinds introduced with code object V5.
    pub fn since_v5(self) -> bool {
        matches!(
            self,
            Self::HiddenBlockCountX
                | Self::HiddenBlockCountY
                | Self::HiddenBlockCountZ
                | Self::HiddenGroupSizeX
                | Self::HiddenGroupSizeY
                | Self::HiddenGroupSizeZ
                | Self::HiddenRemainderX
                | Self::HiddenRemainderY
                | Self::HiddenRemainderZ
                | Self::HiddenGridDims
                | Self::HiddenHeapV1
                | Self::HiddenDynamicLdsSize
                | Self::HiddenPrivateBase
                | Self::HiddenSharedBase
                | Self::HiddenQueuePtr
        )
    }

    /// Where LLVM places this hidden kind for code object version `cov`:
    /// `(offset from the start of the hidden block, size)`. `None` for
    /// explicit kinds, `hidden_none`, and kinds the version does not have.
    pub fn hidden_slot(self, cov: CodeObjectVersion) -> Option<(u64, u64)> {
        use ValueKind as K;
        if cov >= CodeObjectVersion::V5 {
            // NOTES.md "Metadata" and MetadataStreamerMsgPackV5::emitHiddenKernelArgs;
            // the printf buffer slot (72) is not in NOTES.md, checked with clang-19.
            Some(match self {
                K::HiddenBlockCountX => (0, 4),
                K::HiddenBlockCountY => (4, 4),
                K::HiddenBlockCountZ => (8, 4),
                K::HiddenGroupSizeX => (12, 2),
                K::HiddenGroupSizeY => (14, 2),
                K::HiddenGroupSizeZ => (16, 2),
                K::HiddenRemainderX => (18, 2),
                K::HiddenRemainderY => (20, 2),
                K::HiddenRemainderZ => (22, 2),
                K::HiddenGlobalOffsetX => (40, 8),
                K::HiddenGlobalOffsetY => (48, 8),
                K::HiddenGlobalOffsetZ => (56, 8),
                K::HiddenGridDims => (64, 2),
                K::HiddenPrintfBuffer => (72, 8),
                K::HiddenHostcallBuffer => (80, 8),
                K::HiddenMultigridSyncArg => (88, 8),
                K::HiddenHeapV1 => (96, 8),
                K::HiddenDefaultQueue => (104, 8),
                K::HiddenCompletionAction => (112, 8),
                K::HiddenDynamicLdsSize => (120, 4),
                K::HiddenPrivateBase => (192, 4),
                K::HiddenSharedBase => (196, 4),
                K::HiddenQueuePtr => (200, 8),
                _ => return None,
            })
        } else {
            // Pre-V5 LLVM writes up to seven 8-byte slots in this order,
            // with printf and hostcall sharing one.
            Some(match self {
                K::HiddenGlobalOffsetX => (0, 8),
                K::HiddenGlobalOffsetY => (8, 8),
                K::HiddenGlobalOffsetZ => (16, 8),
                K::HiddenPrintfBuffer | K::HiddenHostcallBuffer => (24, 8),
                K::HiddenDefaultQueue => (32, 8),
                K::HiddenCompletionAction => (40, 8),
                K::HiddenMultigridSyncArg => (48, 8),
                _ => return None,
            })
        }
    }
}

/// An argument's address space as the kind rules see it. The wire
/// spellings differ (`local` in V3+, `Local` in V2); the rules, shared by
/// both checkers, do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    /// `local`.
    Local,
    /// `global`, `constant` or `generic`: 64-bit pointers.
    Wide,
    /// Any other value (`private`, `region`, or one LLVM does not know).
    Other,
}

impl Space {
    /// The space at `index` of an address-space enumeration in LLVM's
    /// `AddressSpaceQualifier` order (private, global, constant, local,
    /// generic, region), which both formats' value lists follow; `None`
    /// (a value not in the list) is [`Space::Other`].
    pub(crate) fn from_index(index: Option<usize>) -> Space {
        match index {
            Some(3) => Space::Local,
            Some(1 | 2 | 4) => Space::Wide,
            _ => Space::Other,
        }
    }
}

impl ValueKind {
    /// Whether an argument of this kind in `space` (`None`: no address
    /// space given) is in the wrong one: a `dynamic_shared_pointer`
    /// outside local memory, a `global_buffer` in it
    /// (`AMDGPUHSAMetadataStreamer::getValueKind`).
    pub(crate) fn wrong_space(self, space: Option<Space>) -> bool {
        match self {
            Self::DynamicSharedPointer => space.is_some_and(|s| s != Space::Local),
            Self::GlobalBuffer => space == Some(Space::Local),
            _ => false,
        }
    }

    /// The size a pointer-like argument of this kind in `space` has: 8
    /// bytes for wide global buffers, images, samplers, pipes and queues,
    /// 4 for dynamic shared pointers; `None` where no size is implied.
    pub(crate) fn pointer_size(self, space: Option<Space>) -> Option<u64> {
        match self {
            Self::GlobalBuffer if space == Some(Space::Wide) => Some(8),
            Self::Image | Self::Sampler | Self::Pipe | Self::Queue => Some(8),
            Self::DynamicSharedPointer => Some(4),
            _ => None,
        }
    }
}

/// Where the hidden arguments start: the end of the explicit arguments,
/// given as `(kind, offset, size)`, rounded up to 8 (where LLVM's implicit
/// argument pointer points); `None` if that overflows. Arguments of an
/// unknown kind or without offset and size do not count.
pub(crate) fn hidden_block_start(
    args: impl Iterator<Item = (Option<ValueKind>, Option<u64>, Option<u64>)>,
) -> Option<u64> {
    let explicit_end = args
        .filter(|(kind, ..)| kind.is_some_and(|k| !k.is_hidden()))
        .filter_map(|(_, offset, size)| offset?.checked_add(size?))
        .max()
        .unwrap_or(0);
    explicit_end.checked_add(7).map(|e| e & !7)
}
