import "knipprobebceca-package";
import { keptProbeValue } from "../electron/service/domain/knipProbebcecaModule.ts";

export const probe = keptProbeValue;
