const LIMIT = 5;

function greet(name) {
  return format(name);
}

class Greeter extends Base {
  hello() {
    return greet("x");
  }
}

const shout = (s) => s.toUpperCase();
