let canvas: CanvasRenderingContext2D | null = null;

/** How wide a text is drawn in a CSS font (as getComputedStyle gives it), measured on a canvas. */
export function widthIn(font: string): (text: string) => number {
  canvas ??= document.createElement("canvas").getContext("2d");
  const context = canvas;
  if (context === null) return (text) => text.length * 8;
  context.font = font;
  return (text) => context.measureText(text).width;
}
