//===- Passes.td - vyre simulation passes ------------------*- tablegen -*-===//

#ifndef VYRE_SIMULATION_PASSES_TD
#define VYRE_SIMULATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SimulatePass : Pass<"vyre-simulate", "::mlir::ModuleOp"> {
  let summary = "Simulate a vyre schedule on a model of the GPU's engines";
  let description = [{
    Runs each function's schedule on an engine model and reports, as a remark
    at the function, the makespan, the device time (every copy and kernel
    one after another) and a lower bound on every schedule of the program:
    max(longest dependency path, the busiest kind of engine with its fill
    and drain) plus the host's time in which the device must idle (the first
    launch, each free of an allocation, the return's synchronization).

    The model: the host issues ops in program order, spending the runtime's
    overheads (`launch-us` per launch or memcpy, `event-us` per dependency of
    a join, `stream-create-us` per join, `host-sync-us` per synchronization,
    `alloc-free-us` per allocation the lowering makes, calibrated on an
    H200); a device op starts once it is issued, its stream is free, its
    dependencies are done and an engine of its kind is free, and runs for its
    duration. Defaults: one compute engine and one copy engine per direction,
    55 GB/s each way (an H200's pinned host-to-device rate on PCIe Gen5), 2 us
    of latency per copy, and a kernel time of 10 us unless the dispatch has a
    `vyre.cost_us` attribute. `vyre.sync` and blocking copies hold the host;
    the return waits for all work. Loops run their constant trip count (or
    `default-trip-count`), and `scf.if` its constant branch (or the then
    branch). Trip counts and byte sizes are computed exactly: a copy of more
    than 2^64 - 1 bytes (or, with `steady-state=false`, a loop of more than
    `max-trips` iterations) is an
    error that names the op, never a wrapped count or "copy of 0 B". The
    simulator keeps no per-op record unless it writes a trace, so its memory
    does not grow with the trip count; a trace keeps at most
    `max-trace-events` ops and says so in its last event. A loop runs until
    two iterations in a row grow every time they write by the same amount
    and make the same choices (each start is the latest of its inputs, won
    by an input that grows at least as fast as the others); the remaining
    iterations are then added at once (`steady-state`, on by default). A
    loop that reaches no steady state within `max-trips` iterations is an
    error, and so is a function that runs more than `max-ops` ops one by
    one (on the outermost loop), never a hang.

    Every function of the module is simulated on its own. With `trace=FILE`
    it writes one Chrome trace-event JSON for them all (per function, one
    track per stream and per engine; each event names its kernel, the slots
    it touches, its bytes and its source location) that opens in Perfetto or
    chrome://tracing.

    IR it does not understand (vyre ops in other region ops, a token it
    cannot resolve, a copy of a dynamically sized buffer, a negative cost) is
    an error.
  }];
  let options = [
    Option<"computeEngines", "compute-engines", "unsigned", "1",
           "Kernels that can run at once">,
    Option<"h2dEngines", "h2d-engines", "unsigned", "1",
           "Host-to-device copies that can run at once">,
    Option<"d2hEngines", "d2h-engines", "unsigned", "1",
           "Device-to-host copies that can run at once">,
    Option<"h2dGBps", "h2d-gbps", "double", "55.0",
           "Host-to-device bandwidth, GB/s">,
    Option<"d2hGBps", "d2h-gbps", "double", "55.0",
           "Device-to-host bandwidth, GB/s">,
    Option<"copyLatencyUs", "copy-latency-us", "double", "2.0",
           "Fixed cost of each copy, us">,
    Option<"defaultKernelUs", "default-kernel-us", "double", "10.0",
           "Kernel time without a vyre.cost_us attribute, us">,
    Option<"defaultTripCount", "default-trip-count", "unsigned", "4",
           "Iterations of a loop whose trip count is not constant">,
    Option<"launchUs", "launch-us", "double", "0.85",
           "Host time of issuing a kernel launch or a memcpy, us">,
    Option<"eventUs", "event-us", "double", "1.7",
           "Host time of each dependency of a join (an event record and a "
           "stream wait), us">,
    Option<"streamCreateUs", "stream-create-us", "double", "0.0",
           "Host time of the stream a join creates, us (0: the runtime's "
           "pools hand out streams without a driver call)">,
    Option<"hostSyncUs", "host-sync-us", "double", "1.7",
           "Host time of each synchronization, once the device work it "
           "waits for is done, us">,
    Option<"allocFreeUs", "alloc-free-us", "double", "21.5",
           "Host time of allocating and freeing one device buffer, counted "
           "at its dealloc, us">,
    Option<"groupAllocations", "group-allocations", "bool", "true",
           "Count the buffers freed one after another in the block that "
           "allocates them as one allocation and one free, as "
           "--convert-vyre-to-gpu makes them (false: a free each, as a "
           "program lowered by upstream's passes pays)">,
    Option<"tracePath", "trace", "std::string", "\"\"",
           "Write a Chrome trace-event JSON here">,
    Option<"maxTrips", "max-trips", "uint64_t", "1000000",
           "Most iterations of one loop the simulator runs one by one; a "
           "loop that has more and reaches no steady state in as many (or "
           "any loop with more, with steady-state=false) is an error">,
    Option<"steadyState", "steady-state", "bool", "true",
           "Run a loop's iterations until two in a row shift every time "
           "they write by the same amount, then add the rest at once "
           "(false: run every iteration)">,
    Option<"maxTraceEvents", "max-trace-events", "uint64_t", "1000000",
           "Most ops the trace shows; later ones are left out, with a note">,
    Option<"maxOps", "max-ops", "uint64_t", "10000000",
           "Most ops the simulator runs per function, loop iterations "
           "included; more is an error on the outermost loop">,
  ];
}

#endif // VYRE_SIMULATION_PASSES_TD
