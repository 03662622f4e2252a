package demo;

public interface Shape {
    double area();
}

public class Circle implements Shape {
    private double r;

    public Circle(double r) {
        this.r = r;
    }

    @Override
    public double area() {
        return Math.pow(r, 2);
    }
}
