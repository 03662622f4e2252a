import React from "react";

interface Props {
  name: string;
}

export function Hello(props: Props) {
  return <div>{format(props.name)}</div>;
}

export const Button = () => <button onClick={handle}>ok</button>;
