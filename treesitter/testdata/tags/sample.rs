pub const MAX: usize = 3;

pub trait Shape {
    fn area(&self) -> f64;
}

pub struct Circle {
    r: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        square(self.r)
    }
}

fn square(x: f64) -> f64 {
    x * x
}
