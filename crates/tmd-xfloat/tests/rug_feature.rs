//! The optional `rug` conversions agree with the test harness (run with `--features rug`).
#![cfg(feature = "rug")]
mod common;

use tmd_xfloat::{Dd, Df64, Qd, Qf128};

#[test]
fn rug_round_trips() {
    let mut r = common::rng(5);
    for _ in 0..1000 {
        let x: Dd = common::uniform(&mut r, -10.0, 10.0);
        assert_eq!(x.to_rug(), common::to_mp(x));
        assert_eq!(Dd::from_rug(&x.to_rug()), x);
        let q: Qd = common::uniform(&mut r, -10.0, 10.0);
        assert_eq!(Qd::from_rug(&q.to_rug()), q);
        let f: Df64 = common::uniform(&mut r, -10.0, 10.0);
        assert_eq!(Df64::from_rug(&f.to_rug()), f);
        let g: Qf128 = common::uniform(&mut r, -10.0, 10.0);
        assert_eq!(Qf128::from_rug(&g.to_rug()), g);
    }
}
