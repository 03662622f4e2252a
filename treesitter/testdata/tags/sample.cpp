#include <vector>

namespace geo {

class Shape {
public:
	virtual double area() const = 0;
};

class Circle : public Shape {
public:
	double area() const override { return compute(r); }
private:
	double r;
};

double compute(double r) {
	return r * r;
}

}  // namespace geo
