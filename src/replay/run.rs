//! Dispatching one probe ([`hsaco_oracle::probe::Plan`]) on a GPU and
//! reading back its output buffer: the part of `replay` that talks to the
//! HSA runtime, through the bindings of [`super::hsa`].
//!
//! A [`Harness`] is opened once per worker process (`hsa_init`, the GPU
//! agents, the kernarg and fine-grained system memory pools); then
//! [`Harness::run_plan`] runs each case: it picks the GPU whose ISA
//! matches the plan's target, allocates the output buffer, patches its
//! address into a copy of the code object, loads the object, copies the
//! kernel arguments in, creates a queue and a completion signal, writes
//! the AQL packet ([`build_packet`]) and rings the doorbell, waits with a
//! time limit and copies the output buffer back.
//!
//! The pure parts (the packet, the patch, matching an agent's ISA to a
//! target, which runtime's loader knows which code object version) are
//! functions of their own, tested without a GPU.

use std::fmt;
use std::time::Duration;

use hsaco_oracle::layout::dispatch::{header, KernelDispatchPacket, SETUP_DIMENSIONS};
use hsaco_oracle::probe::{Addresses, Plan, Shape};
use hsaco_oracle::targets::{CodeObjectVersion, Feature, FeatureSetting, TargetId};
use serde::{Deserialize, Serialize};

use super::hsa::{
    self, Agent, CallError, HostPool, Hsa, MemoryPool, PoolInfo, Runtime, Status, Wait,
    HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
    HSA_AMD_SEGMENT_GLOBAL, HSA_DEVICE_TYPE_CPU, HSA_DEVICE_TYPE_GPU,
};
use crate::peers::discover::so_version;
use crate::peers::library::LibraryError;

/// The largest output buffer a plan may ask for (256 MiB: a probe needs
/// 1,344 bytes per wave64 wave).
pub const MAX_OUTPUT_BYTES: u64 = 1 << 28;

/// Why a case produced no output buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseError {
    /// The case cannot be run here: no agent for its target, a code object
    /// version this runtime's loader predates.
    NotComparable(String),
    /// The runtime's loader refused the code object (data: a finding when
    /// the oracle accepts the object).
    LoaderRejected(String),
    /// The dispatch did not complete within the time limit (seconds).
    Timeout(f64),
    /// Anything else: a runtime call that failed, a bad plan.
    Error(String),
}

impl CaseError {
    /// The `status` of the case's `runs.jsonl` line.
    pub fn outcome(&self) -> Outcome {
        match self {
            CaseError::NotComparable(_) => Outcome::NotComparable,
            CaseError::LoaderRejected(_) => Outcome::LoaderRejected,
            CaseError::Timeout(_) => Outcome::Timeout,
            CaseError::Error(_) => Outcome::Error,
        }
    }
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseError::NotComparable(t) => write!(f, "not comparable: {t}"),
            CaseError::LoaderRejected(t) => write!(f, "loader rejected the code object: {t}"),
            CaseError::Timeout(s) => write!(f, "the dispatch did not complete within {s} s"),
            CaseError::Error(t) => f.write_str(t),
        }
    }
}

impl std::error::Error for CaseError {}

impl From<CallError> for CaseError {
    fn from(e: CallError) -> Self {
        CaseError::Error(e.to_string())
    }
}

/// How a case ended: the `status` field of `runs.jsonl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The probe ran; its output buffer is `CASE.out`.
    Ok,
    /// The loader refused the code object.
    LoaderRejected,
    /// The case cannot run here.
    NotComparable,
    /// The dispatch or the worker ran out of time.
    Timeout,
    /// The worker process died (a GPU fault the runtime answers with
    /// abort, a crash in the runtime).
    Crashed,
    /// Anything else.
    Error,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Ok => "ok",
            Outcome::LoaderRejected => "loader_rejected",
            Outcome::NotComparable => "not_comparable",
            Outcome::Timeout => "timeout",
            Outcome::Crashed => "crashed",
            Outcome::Error => "error",
        })
    }
}

/// Firmware versions of a GPU agent (`None` where the runtime does not
/// answer: before ROCm 5.5).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Firmware {
    /// Command processor microcode (`HSA_AMD_AGENT_INFO_UCODE_VERSION`).
    pub cp: Option<u32>,
    /// SDMA microcode (`HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION`).
    pub sdma: Option<u32>,
}

/// What a dispatch ran on: enough to tell two machines' dumps apart.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// The agent's name (`gfx90a`).
    pub agent: String,
    /// Its marketing name (`AMD Instinct MI210`).
    pub product: String,
    /// The ISA the case was matched to
    /// (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`).
    pub isa: String,
    /// The runtime: ROCr's build identifier, else the library's version.
    pub runtime: String,
    /// The HSA specification version the runtime implements (`1.1`).
    pub hsa: String,
    /// Firmware versions.
    pub firmware: Firmware,
}

/// One dispatch's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The addresses the harness used.
    pub addresses: Addresses,
    /// The output buffer after the dispatch.
    pub output: Vec<u8>,
    /// What it ran on.
    pub signature: Signature,
}

/// Why no case can run on this machine (the whole command stops).
#[derive(Clone, Debug, PartialEq)]
pub enum Unavailable {
    /// The runtime library could not be loaded (or lacks a function).
    NoRuntime(LibraryError),
    /// `hsa_init` failed (no `/dev/kfd`: `HSA_STATUS_ERROR_OUT_OF_RESOURCES`).
    InitFailed(Status),
    /// A call after `hsa_init` failed before any agent was seen.
    Call(CallError),
    /// The runtime lists no GPU agent; these are the agents it lists.
    NoGpu(Vec<String>),
}

impl fmt::Display for Unavailable {
    /// One line, for standard error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NoRuntime(e) => write!(f, "no HSA runtime: {e}"),
            Unavailable::InitFailed(s) => {
                write!(f, "no GPU agent: hsa_init returned {s}; is /dev/kfd present?")
            }
            Unavailable::Call(e) => write!(f, "no GPU agent: {e}"),
            Unavailable::NoGpu(agents) => write!(
                f,
                "no GPU agent: hsa_init succeeded but the runtime lists no GPU among its {} agent{} ({}); is /dev/kfd present?",
                agents.len(),
                if agents.len() == 1 { "" } else { "s" },
                if agents.is_empty() {
                    "none".to_owned()
                } else {
                    agents.join(", ")
                }
            ),
        }
    }
}

/// A GPU agent as the harness sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gpu {
    /// Its handle.
    #[serde(skip, default = "no_agent")]
    pub agent: Agent,
    /// `HSA_AGENT_INFO_NAME` (`gfx90a`).
    pub name: String,
    /// Marketing name.
    pub product: String,
    /// Its ISA names.
    pub isas: Vec<String>,
    /// Smallest and largest queue sizes.
    pub queue_sizes: (u32, u32),
    /// Firmware versions.
    pub firmware: Firmware,
}

fn no_agent() -> Agent {
    Agent(0)
}

/// The runtime, opened once per worker: GPUs, the memory pools every case
/// allocates from, the versions every case's signature names.
pub struct Harness<'h> {
    rt: Runtime<'h>,
    /// The GPU agents.
    pub gpus: Vec<Gpu>,
    kernarg_pool: Option<HostPool>,
    output_pool: Option<HostPool>,
    /// The runtime's version, as the signature names it.
    pub runtime: String,
    /// The HSA specification version.
    pub hsa_version: String,
    /// The library's version (`1.5`), for the loader's code object
    /// versions ([`loader_newest_version`]).
    pub library_version: Option<(u32, u32)>,
    hz: u64,
}

/// The pools a case allocates from, among the CPU agents' pools: the
/// kernarg pool (global, `KERNARG_INIT`, allocatable) and a fine-grained
/// global pool for the output buffer (the host reads it while and after
/// the kernel writes it), another than the kernarg pool where there is
/// one. The first of each, in the runtime's order.
pub fn pick_pools(pools: &[PoolInfo]) -> (Option<MemoryPool>, Option<MemoryPool>) {
    let usable = |p: &&PoolInfo| p.segment == HSA_AMD_SEGMENT_GLOBAL && p.alloc_allowed;
    let kernarg = pools
        .iter()
        .filter(usable)
        .find(|p| p.global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT != 0)
        .map(|p| p.pool);
    let fine = |p: &&PoolInfo| p.global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED != 0;
    // Preferably not the kernarg pool (which the runtime may keep small).
    let output = pools
        .iter()
        .filter(usable)
        .filter(fine)
        .find(|p| Some(p.pool) != kernarg)
        .or_else(|| pools.iter().filter(usable).find(fine))
        .map(|p| p.pool);
    (kernarg, output)
}

/// The library version in ROCr's build identifier
/// (`1.14.60200-...` gives 1.14) or in the library's file name.
pub fn parse_library_version(s: &str) -> Option<(u32, u32)> {
    let mut it = s.split(['.', '-']);
    let major = it.next()?.trim().parse().ok()?;
    let minor = it.next()?.trim().parse().ok()?;
    Some((major, minor))
}

/// The newest code object version the loader of each `libhsa-runtime64`
/// release accepts for sure, by library version (ROCR-Runtime's
/// `src/loader/executable.cpp` at each `rocm-*` tag refuses
/// `majorVersion > N` with `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`; the
/// library version is `get_version` in its `src/CMakeLists.txt`): 1.4
/// (ROCm 4.5) and 1.5 (ROCm 5.0 to 5.2, of which 5.2 also takes V5) V4,
/// 1.7 (ROCm 5.3) to 1.13 (ROCm 6.1) V5, 1.14 (ROCm 6.2) on V6.
pub static LOADER_VERSIONS: &[((u32, u32), CodeObjectVersion)] = &[
    ((1, 4), CodeObjectVersion::V4),
    ((1, 7), CodeObjectVersion::V5),
    ((1, 14), CodeObjectVersion::V6),
];

/// The newest code object version the loader of library version
/// `version` surely accepts ([`LOADER_VERSIONS`]); `None` for a library
/// older than the table.
pub fn loader_newest_version(version: (u32, u32)) -> Option<CodeObjectVersion> {
    LOADER_VERSIONS
        .iter()
        .rev()
        .find(|(v, _)| *v <= version)
        .map(|(_, c)| *c)
}

/// The code object version of an HSA code object (`EI_ABIVERSION` with
/// `EI_OSABI` 64), if the bytes are one.
pub fn code_object_version(bytes: &[u8]) -> Option<CodeObjectVersion> {
    const EI_OSABI: usize = 7;
    const EI_ABIVERSION: usize = 8;
    const ELFOSABI_AMDGPU_HSA: u8 = 64;
    if bytes.get(..4) != Some(b"\x7fELF".as_slice())
        || bytes.get(EI_OSABI) != Some(&ELFOSABI_AMDGPU_HSA)
    {
        return None;
    }
    CodeObjectVersion::from_abi_version(*bytes.get(EI_ABIVERSION)?)
}

/// True when an agent with ISA `isa` (`amdgcn-amd-amdhsa--gfx90a:xnack-`)
/// runs code for `target` (`gfx90a`, `gfx90a:xnack-`, `gfx9-generic`):
/// the same processor, or a generic target that covers it, and no feature
/// the target sets (`xnack+`) set the other way on the agent.
pub fn isa_matches(target: &str, isa: &str) -> bool {
    let processor = |s: &str| {
        s.strip_prefix(hsaco_oracle::targets::TRIPLE_PREFIX)
            .unwrap_or(s)
            .split(':')
            .next()
            .unwrap_or("")
            .to_owned()
    };
    match (TargetId::parse(target), TargetId::parse(isa)) {
        (Ok(t), Ok(a)) => {
            let same = t.target.name == a.target.name
                || (t.target.is_generic && a.target.generic == Some(t.target.name));
            same && Feature::ALL.iter().all(|&f| {
                let (want, have) = (t.setting(f), a.setting(f));
                !matches!(
                    (want, have),
                    (FeatureSetting::On, FeatureSetting::Off)
                        | (FeatureSetting::Off, FeatureSetting::On)
                )
            })
        }
        // A processor the oracle does not model: by name only.
        _ => !processor(target).is_empty() && processor(target) == processor(isa),
    }
}

/// The grid's dimensions for the packet's setup: the highest dimension
/// whose grid or work-group size is above 1 (1 for a 1x1x1 dispatch).
pub fn dimensions(shape: &Shape) -> u16 {
    if shape.grid[2] > 1 || shape.workgroup[2] > 1 {
        3
    } else if shape.grid[1] > 1 || shape.workgroup[1] > 1 {
        2
    } else {
        1
    }
}

/// The AQL kernel dispatch packet for `plan`: kernel dispatch type,
/// barrier bit, system-scope acquire and release fences, the grid's
/// dimensions, the plan's sizes, and the addresses given.
pub fn build_packet(
    plan: &Plan,
    kernel_object: u64,
    kernarg_address: u64,
    completion_signal: u64,
) -> KernelDispatchPacket {
    let system = header::FENCE_SCOPES
        .iter()
        .find(|(_, n)| *n == "system")
        .map_or(2, |(v, _)| *v);
    let mut h = header::TYPE.set(0, header::TYPE_KERNEL_DISPATCH);
    h = header::BARRIER.set(h, 1);
    h = header::SCACQUIRE_FENCE_SCOPE.set(h, system);
    h = header::SCRELEASE_FENCE_SCOPE.set(h, system);
    KernelDispatchPacket {
        header: h,
        setup: SETUP_DIMENSIONS.set(0, dimensions(&plan.shape)),
        workgroup_size: plan.shape.workgroup,
        reserved0: 0,
        grid_size: plan.shape.grid,
        private_segment_size: plan.private_segment_size,
        group_segment_size: plan.group_segment_size,
        kernel_object,
        kernarg_address,
        reserved2: 0,
        completion_signal,
    }
}

/// Writes the low and high halves of `address` at `offsets` of `bytes`
/// (the probe's two 32-bit literals).
pub fn patch_output_address(
    bytes: &mut [u8],
    offsets: [u64; 2],
    address: u64,
) -> Result<(), CaseError> {
    for (at, half) in offsets
        .into_iter()
        .zip([address as u32, (address >> 32) as u32])
    {
        let range = usize::try_from(at)
            .ok()
            .and_then(|a| Some(a..a.checked_add(4)?))
            .filter(|r| r.end <= bytes.len())
            .ok_or_else(|| {
                CaseError::Error(format!(
                    "patch offset {at:#x} is outside the {}-byte code object",
                    bytes.len()
                ))
            })?;
        bytes[range].copy_from_slice(&half.to_le_bytes());
    }
    Ok(())
}

/// The kernel arguments of a plan, from its hex text.
pub fn kernarg_bytes(hex: &str) -> Result<Vec<u8>, CaseError> {
    hex_bytes("kernarg_hex", hex)
}

/// The bytes a plan writes into the output buffer before the dispatch.
pub fn output_init_bytes(hex: &str) -> Result<Vec<u8>, CaseError> {
    hex_bytes("output_init_hex", hex)
}

/// The bytes of the plan's hex field `what`.
fn hex_bytes(what: &str, hex: &str) -> Result<Vec<u8>, CaseError> {
    let hex = hex.trim();
    hsaco_oracle::hex::decode(hex).ok_or_else(|| {
        CaseError::Error(format!(
            "{what} is not hex, two digits per byte ({} characters)",
            hex.len()
        ))
    })
}

impl<'h> Harness<'h> {
    /// Initialises the runtime and finds the GPUs and the memory pools.
    pub fn open(hsa: &'h Hsa) -> Result<Harness<'h>, Unavailable> {
        let rt = hsa.init().map_err(|e| Unavailable::InitFailed(e.status))?;
        let version = rt.version().map_err(Unavailable::Call)?;
        let hz = rt.timestamp_frequency().map_err(Unavailable::Call)?;
        let agents = rt.agents().map_err(Unavailable::Call)?;
        let mut gpus = Vec::new();
        let mut listed = Vec::new();
        for a in agents {
            let name = rt.agent_name(a).unwrap_or_default();
            let device = rt.agent_device(a).map_err(Unavailable::Call)?;
            listed.push(format!(
                "{name} ({})",
                match device {
                    HSA_DEVICE_TYPE_CPU => "cpu".to_owned(),
                    HSA_DEVICE_TYPE_GPU => "gpu".to_owned(),
                    hsa::HSA_DEVICE_TYPE_DSP => "dsp".to_owned(),
                    n => format!("device type {n}"),
                }
            ));
            if device == HSA_DEVICE_TYPE_GPU {
                let isas = rt
                    .agent_isas(a)
                    .map_err(Unavailable::Call)?
                    .into_iter()
                    .map(|i| rt.isa_name(i))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(Unavailable::Call)?;
                gpus.push(Gpu {
                    agent: a,
                    product: rt.agent_product_name(a).unwrap_or_default(),
                    isas,
                    queue_sizes: (
                        rt.agent_u32(a, hsa::HSA_AGENT_INFO_QUEUE_MIN_SIZE)
                            .map_err(Unavailable::Call)?,
                        rt.agent_u32(a, hsa::HSA_AGENT_INFO_QUEUE_MAX_SIZE)
                            .map_err(Unavailable::Call)?,
                    ),
                    firmware: Firmware {
                        cp: rt.agent_u32(a, hsa::HSA_AMD_AGENT_INFO_UCODE_VERSION).ok(),
                        sdma: rt
                            .agent_u32(a, hsa::HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION)
                            .ok(),
                    },
                    name,
                });
            }
        }
        if gpus.is_empty() {
            return Err(Unavailable::NoGpu(listed));
        }
        let pools = rt.host_pools().map_err(Unavailable::Call)?;
        let infos: Vec<PoolInfo> = pools.iter().map(|p| *p.info()).collect();
        let (kernarg, output) = pick_pools(&infos);
        let find = |m: Option<MemoryPool>| pools.iter().find(|p| Some(p.info().pool) == m).copied();
        let (kernarg_pool, output_pool) = (find(kernarg), find(output));
        // The library file's version is the one LOADER_VERSIONS is keyed
        // by; ROCr's build identifier starts with it too.
        let library_version = so_version(hsa.path())
            .as_deref()
            .and_then(parse_library_version)
            .or_else(|| version.build.as_deref().and_then(parse_library_version));
        let runtime = version
            .build
            .clone()
            .or_else(|| so_version(hsa.path()))
            .unwrap_or_else(|| "unknown".into());
        Ok(Harness {
            hsa_version: format!("{}.{}", version.hsa.0, version.hsa.1),
            rt,
            gpus,
            kernarg_pool,
            output_pool,
            runtime,
            library_version,
            hz,
        })
    }

    /// The first GPU and ISA that run code for `target`.
    pub fn gpu_for(&self, target: &str) -> Option<(&Gpu, &str)> {
        self.gpus.iter().find_map(|g| {
            g.isas
                .iter()
                .find(|i| isa_matches(target, i))
                .map(|i| (g, i.as_str()))
        })
    }

    /// Runs `plan`, whose code object is `object`, waiting at most
    /// `timeout` for the dispatch.
    pub fn run_plan(
        &self,
        plan: &Plan,
        object: &[u8],
        timeout: Duration,
    ) -> Result<Run, CaseError> {
        let Some((gpu, isa)) = self.gpu_for(&plan.target) else {
            let have: Vec<&str> = self.gpus.iter().map(|g| g.name.as_str()).collect();
            return Err(CaseError::NotComparable(format!(
                "no agent for {} (this machine has {})",
                plan.target,
                have.join(", ")
            )));
        };
        let signature = Signature {
            agent: gpu.name.clone(),
            product: gpu.product.clone(),
            isa: isa.to_owned(),
            runtime: self.runtime.clone(),
            hsa: self.hsa_version.clone(),
            firmware: gpu.firmware.clone(),
        };
        let kernarg = kernarg_bytes(&plan.kernarg_hex)?;
        if plan.output_bytes > MAX_OUTPUT_BYTES {
            return Err(CaseError::Error(format!(
                "output_bytes {} is over the {MAX_OUTPUT_BYTES}-byte limit",
                plan.output_bytes
            )));
        }
        let (Some(kernarg_pool), Some(output_pool)) = (self.kernarg_pool, self.output_pool) else {
            return Err(CaseError::Error(
                "the runtime lists no kernarg pool or no fine-grained system memory pool".into(),
            ));
        };
        // The host reaches system memory already; the GPU is let in.
        let access = [gpu.agent];
        let rt = &self.rt;
        // Declared in this order so that they drop in reverse: the queue
        // first, then the signal, kernel arguments, executable and output.
        let output = rt.allocate(&output_pool, plan.output_bytes, &access)?;
        let init = output_init_bytes(&plan.output_init_hex)?;
        if !init.is_empty() && !output.write(plan.output_init_offset as usize, &init) {
            return Err(CaseError::Error(format!(
                "output_init_hex ({} bytes at {}) does not fit the {}-byte output buffer",
                init.len(),
                plan.output_init_offset,
                plan.output_bytes
            )));
        }
        let mut bytes = object.to_vec();
        patch_output_address(&mut bytes, plan.patch_offsets, output.address())?;
        let exe = match rt.load(gpu.agent, &bytes) {
            Ok(e) => e,
            Err(e) => return Err(self.rejection(&bytes, e)),
        };
        let info = exe
            .kernel(&format!("{}.kd", plan.kernel), gpu.agent)
            .or_else(|_| exe.kernel(&plan.kernel, gpu.agent))
            .map_err(|e| {
                CaseError::Error(format!(
                    "kernel {} not in the loaded executable: {e}",
                    plan.kernel
                ))
            })?;
        let kernarg_size = (kernarg.len() as u64)
            .max(u64::from(info.kernarg_segment_size))
            .max(16)
            .next_multiple_of(16);
        let args = rt.allocate(&kernarg_pool, kernarg_size, &access)?;
        if !args.write(0, &kernarg) {
            return Err(CaseError::Error("kernel arguments do not fit".into()));
        }
        let signal = rt.signal(1)?;
        let (min, max) = gpu.queue_sizes;
        let queue = rt.queue(gpu.agent, 64u32.max(min).min(max.max(min)))?;
        let packet = build_packet(plan, info.kernel_object, args.address(), signal.handle().0);
        let sent = queue.submit(&packet, timeout)?;
        let addresses = Addresses {
            packet: sent.packet,
            queue: queue.address(),
            kernarg: args.address(),
            output: output.address(),
            packet_index: sent.index,
        };
        // A queue error (an illegal instruction, say) stops the queue: the
        // completion signal would never change, so the wait ends there.
        let waited = signal.wait_below(1, timeout, self.hz, || queue.error().is_some());
        if let Some(s) = queue.error() {
            return Err(CaseError::Error(format!("the queue reported {s}")));
        }
        if let Wait::TimedOut(_) | Wait::GaveUp(_) = waited {
            return Err(CaseError::Timeout(timeout.as_secs_f64()));
        }
        let output_bytes = output.read();
        drop(queue);
        Ok(Run {
            addresses,
            output: output_bytes,
            signature,
        })
    }

    /// A loader failure as a case error: not comparable when the object's
    /// code object version is newer than this runtime's loader surely
    /// takes, else the loader's rejection.
    fn rejection(&self, bytes: &[u8], e: CallError) -> CaseError {
        let cov = code_object_version(bytes);
        let newest = self.library_version.and_then(loader_newest_version);
        match (cov, newest, self.library_version) {
            (Some(c), Some(n), Some((ma, mi))) if c > n => CaseError::NotComparable(format!(
                "code object V{} is newer than libhsa-runtime64 {ma}.{mi}'s loader takes (up to V{}): {e}",
                c.number(),
                n.number()
            )),
            _ => CaseError::LoaderRejected(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsaco_oracle::layout::dispatch::PACKET_SIZE;

    fn plan() -> Plan {
        Plan {
            case: "c".into(),
            object: "c.hsaco".into(),
            target: "gfx90a".into(),
            kernel: "probe".into(),
            lanes: 64,
            shape: Shape {
                grid: [128, 4, 1],
                workgroup: [64, 2, 1],
            },
            captured_sgprs: 16,
            private_segment_size: 48,
            group_segment_size: 256,
            kernarg_hex: "0102".into(),
            output_bytes: 4096,
            patch_offsets: [0x100, 0x108],
            kind: Default::default(),
            output_init_hex: String::new(),
            output_init_offset: 0,
        }
    }

    #[test]
    fn the_packet_round_trips_with_the_expected_fields() {
        let p = build_packet(&plan(), 0x7000_1000, 0x7f00_0000, 0x5555_0040);
        let b: [u8; PACKET_SIZE] = p.to_bytes();
        let q = KernelDispatchPacket::parse(&b);
        assert_eq!(p, q);
        assert_eq!(header::TYPE.get(q.header), header::TYPE_KERNEL_DISPATCH);
        assert_eq!(header::BARRIER.get(q.header), 1);
        assert_eq!(header::SCACQUIRE_FENCE_SCOPE.get(q.header), 2);
        assert_eq!(header::SCRELEASE_FENCE_SCOPE.get(q.header), 2);
        assert_eq!(q.header, 0x1502);
        assert_eq!(q.dimensions(), 2);
        assert_eq!(q.workgroup_size, [64, 2, 1]);
        assert_eq!(q.grid_size, [128, 4, 1]);
        assert_eq!(q.private_segment_size, 48);
        assert_eq!(q.group_segment_size, 256);
        assert_eq!(q.kernel_object, 0x7000_1000);
        assert_eq!(q.kernarg_address, 0x7f00_0000);
        assert_eq!(q.completion_signal, 0x5555_0040);
        assert_eq!((q.reserved0, q.reserved2), (0, 0));
        // The first dword (stored last, atomically) is header | setup << 16.
        assert_eq!(
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            0x1502 | (2 << 16)
        );
    }

    /// The harness's packet keeps every dispatch rule of the oracle
    /// (`hsaco_oracle::dispatch`) for a kernel the plan fits.
    #[test]
    fn the_packet_keeps_the_dispatch_rules() {
        use hsaco_oracle::dispatch::{check, Kernel, KernelMetadata};
        use hsaco_oracle::kd::KernelDescriptor;
        let desc = KernelDescriptor {
            group_segment_fixed_size: 256,
            private_segment_fixed_size: 48,
            kernarg_size: 16,
            ..Default::default()
        };
        let md = KernelMetadata {
            max_flat_workgroup_size: Some(256),
            group_segment_fixed_size: Some(256),
            private_segment_fixed_size: Some(48),
            kernarg_segment_size: Some(16),
            kernarg_segment_align: Some(8),
            ..Default::default()
        };
        let k = Kernel {
            descriptor: &desc,
            target: hsaco_oracle::targets::by_name("gfx90a").expect("gfx90a"),
            metadata: Some(&md),
        };
        let p = build_packet(
            &plan(),
            0x7f00_0000_1000,
            0x7f00_0002_0000,
            0x7f00_0003_0040,
        );
        let mut sink = hsaco_oracle::Sink::new();
        check(&p, &k, &mut sink);
        let ids: Vec<&str> = sink.violations.iter().map(|v| v.rule.id).collect();
        assert!(ids.is_empty(), "{ids:?}");
    }

    #[test]
    fn dimensions_follow_the_shape() {
        let s = |grid, workgroup| Shape { grid, workgroup };
        assert_eq!(dimensions(&s([1, 1, 1], [1, 1, 1])), 1);
        assert_eq!(dimensions(&s([256, 1, 1], [64, 1, 1])), 1);
        assert_eq!(dimensions(&s([1, 2, 1], [1, 1, 1])), 2);
        assert_eq!(dimensions(&s([1, 1, 1], [1, 1, 2])), 3);
    }

    #[test]
    fn the_output_address_is_patched_in_two_halves() {
        let mut b = vec![0u8; 16];
        patch_output_address(&mut b, [4, 12], 0x1122_3344_5566_7788).expect("fits");
        assert_eq!(&b[4..8], &[0x88, 0x77, 0x66, 0x55]);
        assert_eq!(&b[12..16], &[0x44, 0x33, 0x22, 0x11]);
        assert!(patch_output_address(&mut b, [4, 13], 1).is_err());
        assert!(patch_output_address(&mut b, [u64::MAX, 0], 1).is_err());
    }

    #[test]
    fn kernargs_come_from_hex() {
        assert_eq!(kernarg_bytes("00ff10").expect("hex"), vec![0, 0xff, 0x10]);
        assert_eq!(kernarg_bytes("").expect("empty"), Vec::<u8>::new());
        assert!(kernarg_bytes("abc").is_err());
        assert!(kernarg_bytes("zz").is_err());
    }

    #[test]
    fn isas_match_targets() {
        let isa = "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";
        assert!(isa_matches("gfx90a", isa));
        assert!(isa_matches("gfx90a:xnack-", isa));
        assert!(!isa_matches("gfx90a:xnack+", isa));
        assert!(!isa_matches("gfx908", isa));
        // gfx9-generic covers gfx900 but not gfx90a.
        assert!(!isa_matches("gfx9-generic", isa));
        assert!(isa_matches(
            "gfx9-generic",
            "amdgcn-amd-amdhsa--gfx900:xnack-"
        ));
        assert!(!isa_matches("gfx10-1-generic", isa));
        assert!(isa_matches("gfx1100", "amdgcn-amd-amdhsa--gfx1100"));
    }

    #[test]
    fn loader_versions_by_runtime() {
        assert_eq!(parse_library_version("1.14.60200-66~22.04"), Some((1, 14)));
        assert_eq!(parse_library_version("1.5.0"), Some((1, 5)));
        assert_eq!(parse_library_version("x"), None);
        assert_eq!(loader_newest_version((1, 5)), Some(CodeObjectVersion::V4));
        assert_eq!(loader_newest_version((1, 13)), Some(CodeObjectVersion::V5));
        assert_eq!(loader_newest_version((1, 14)), Some(CodeObjectVersion::V6));
        assert_eq!(loader_newest_version((2, 0)), Some(CodeObjectVersion::V6));
        assert_eq!(loader_newest_version((1, 3)), None);
        let mut h = vec![0u8; 16];
        h[..4].copy_from_slice(b"\x7fELF");
        h[7] = 64;
        h[8] = 4;
        assert_eq!(code_object_version(&h), Some(CodeObjectVersion::V6));
        h[7] = 0;
        assert_eq!(code_object_version(&h), None);
    }

    #[test]
    fn pools_are_picked_by_flags() {
        let p = |n, seg, flags, alloc| PoolInfo {
            pool: MemoryPool(n),
            segment: seg,
            global_flags: flags,
            alloc_allowed: alloc,
            size: 1 << 30,
        };
        let pools = [
            p(
                1,
                HSA_AMD_SEGMENT_GLOBAL,
                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE,
                true,
            ),
            p(
                2,
                HSA_AMD_SEGMENT_GLOBAL,
                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                false,
            ),
            p(
                3,
                HSA_AMD_SEGMENT_GLOBAL,
                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT
                    | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                true,
            ),
            p(
                4,
                HSA_AMD_SEGMENT_GLOBAL,
                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                true,
            ),
        ];
        assert_eq!(
            pick_pools(&pools),
            (Some(MemoryPool(3)), Some(MemoryPool(4)))
        );
        assert_eq!(
            pick_pools(&pools[..3]),
            (Some(MemoryPool(3)), Some(MemoryPool(3)))
        );
        assert_eq!(pick_pools(&pools[..2]), (None, None));
    }

    const HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE: u32 =
        hsa::HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;

    #[test]
    fn unavailable_messages() {
        assert_eq!(
            Unavailable::InitFailed(Status(0x1008)).to_string(),
            "no GPU agent: hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008); is /dev/kfd present?"
        );
        assert_eq!(
            Unavailable::NoGpu(vec!["AMD EPYC (cpu)".into()]).to_string(),
            "no GPU agent: hsa_init succeeded but the runtime lists no GPU among its 1 agent (AMD EPYC (cpu)); is /dev/kfd present?"
        );
    }
}
