//! Link libtorch so that the binary finds it at run time and keeps its CUDA back end (the
//! version is stamped by crates/sweep's build.rs, `wavebench_sweep::VERSION`).
//!
//! `torch-sys` (a direct dependency for exactly this reason) exports the folder that holds
//! libtorch as `DEP_TCH_LIBTORCH_LIB`. We bake it into the binary's rpath, and force
//! `libtorch.so` onto the link line with `--no-as-needed`: nothing in our code references
//! a symbol of `libtorch_cuda.so` directly, so without it the linker drops the CUDA
//! library and `Cuda::is_available()` silently answers false on a GPU machine.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    }
    println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
    println!("cargo:rustc-link-arg=-ltorch");
}
