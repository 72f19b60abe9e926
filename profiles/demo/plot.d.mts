// Types of plot.mjs for the TypeScript tests that check its bytes.
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Buffer;
export function plotPng(values: number[], width?: number, height?: number): Buffer;
