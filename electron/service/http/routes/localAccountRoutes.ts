import type { FastifyInstance } from "fastify";
import { accountAnswerSchemas } from "../../../../shared/accountAnswers.ts";
import type { AccountDto } from "../../../../shared/bridgeTypes.ts";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { managedAccounts } from "../../domain/accountRules.ts";
import type { AccountReads } from "../../store/store.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { routePath } from "../methodRoutes.ts";
import { component, documented, jsonContent } from "../routeSchemas.ts";
import { basicOnly, commonErrors, serviceFailures } from "./commonErrors.ts";

const LOCAL_ACCOUNTS_PATH = SERVICE_ROUTES.localAccounts;

const localAccountList = component("LocalAccountList", accountAnswerSchemas(true).accountList);

/**
 * The accounts a caller's Basic credentials manage: its own account first, then every
 * sub-account at any depth in creation order. The desktop app uses it to offer the accountKeys
 * it may manage keys of, and to tell which account a profile's credentials belong to.
 */
export function registerLocalAccountRoutes(
  app: FastifyInstance,
  accounts: AccountReads,
  requireBasic: BasicGuard,
): void {
  routePath(app, LOCAL_ACCOUNTS_PATH, {
    get: documented(
      {
        tags: ["Accounts"],
        operationId: "listLocalAccounts",
        summary: "The caller's own account, then every sub-account it manages (any depth) in creation order",
        security: basicOnly,
        response: {
          200: { description: "The accounts", content: jsonContent(localAccountList) },
          401: commonErrors["401"],
          403: commonErrors["403"],
          429: commonErrors["429"],
          ...serviceFailures,
        },
      },
      {
        before: requireBasic,
        handler: async (_request, _reply, caller) => {
          const all = await accounts.list();
          const keyOf = new Map(all.map((account) => [account.id, account.accountKey]));
          const managed = managedAccounts(all, caller.id).filter((account) => account.id !== caller.id);
          const toDto = (account: (typeof all)[number], own: boolean): AccountDto => ({
            accountKey: account.accountKey,
            username: account.username,
            parentAccountKey: own || account.parentId === null ? null : (keyOf.get(account.parentId) ?? null),
          });
          return { accounts: [toDto(caller, true), ...managed.map((account) => toDto(account, false))] };
        },
      },
    ),
  });
}
