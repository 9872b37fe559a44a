export const keptProbeValue = 1;
export const unusedProbeValue = 2;
export type UnusedProbeType = number;
