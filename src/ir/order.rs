//! A function order for the linker: what the order pass computes and its back-end prints.

/// A function order and how good it is on the test traces.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FunctionOrder {
    /// Name hashes of the functions, first to place first.
    pub functions: Vec<u64>,
    /// With test traces: the area under their page-fault curve (assuming 32 functions per
    /// page), the figure llvm-profdata prints; a 32-bit count that wraps as LLVM's does.
    pub page_fault_area: Option<u32>,
}
