export const orphanProbeValue = 1;
