//! The layout constants of `tmd_kernels::layout` on a real compiler (PoCL without a GPU): the
//! kernels see the host's values, every program builds with them, and a program built
//! without one of them stops at vendor.h's `#error` naming it.

use opencl3::program::Program;
use tmd_gpu::opencl::OpenClDevice;
use tmd_kernels::{layout, Id};

#[test]
fn kernels_see_the_hosts_layout_values() {
    let device = OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}"));
    let defines = layout::defines();
    // A crunch target that returns the value of define number x, as the device compiled it.
    let cases: Vec<String> = defines
        .iter()
        .enumerate()
        .map(|(i, (name, _))| format!("        case {i}: return (float){name};\n"))
        .collect();
    let target = format!(
        "DEVICE_FN float crunch_target(float x) {{\n    switch ((int)x) {{\n{}        \
         default: return -1.0f;\n    }}\n}}\n",
        cases.concat()
    );
    let xs: Vec<f32> = (0..defines.len()).map(|i| i as f32).collect();
    let seen = device
        .crunch_eval(&target, &xs)
        .unwrap_or_else(|e| panic!("{e}"));
    for ((name, value), got) in defines.iter().zip(seen) {
        assert_eq!(got, value.parse::<f32>().unwrap(), "{name}");
    }
}

#[test]
fn every_program_builds_with_the_layout() {
    let device = OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}"));
    for id in Id::ALL {
        device.build(id).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn a_missing_layout_define_stops_the_build() {
    // Through tmd-gpu's enumeration, which holds the process-wide lock: the ICD loader's
    // first enumeration is not safe to race with the other tests'.
    let device = OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}"));
    let context = device.context();
    let source = tmd_kernels::source(Id::filter_for([2, 1, 0], true, 32));
    for (missing, _) in layout::defines() {
        let others: Vec<(&str, String)> = layout::defines()
            .into_iter()
            .filter(|(name, _)| *name != missing)
            .collect();
        let mut options = String::from("-cl-fp32-correctly-rounded-divide-sqrt");
        for (name, value) in &others {
            options.push_str(&format!(" -D{name}={value}"));
        }
        match Program::create_and_build_from_source(context, &source, &options) {
            Ok(_) => panic!("built without {missing}"),
            Err(log) => assert!(
                log.contains(&format!("{missing} missing")),
                "without {missing}: {log}"
            ),
        }
    }
}
