/**
 * Revoking a key or blocking a team ends what was signed in with it: the grants, sessions,
 * authorization codes and refresh tokens issued through the key (or any key of the team) are deleted,
 * so a refresh fails at once; access tokens (JWTs, ten minutes at most) die at the resource server's
 * per-request check of the key they stand for.
 */
import type { OAuthRepo } from '../../store/contracts/oauth.js';
import type { KeysService } from '../accounts/keys.service.js';
import type { TeamsService } from '../accounts/teams.service.js';

/** `keys` and `teams` whose `revoke` and `block` also revoke the OAuth grants of the key or team. */
export function revokingOAuthGrants(
  keys: KeysService,
  teams: TeamsService,
  repo: OAuthRepo,
): { keys: KeysService; teams: TeamsService } {
  return {
    keys: {
      ...keys,
      async revoke(idOrKey, actor) {
        const info = await keys.revoke(idOrKey, actor);
        await repo.revokeByAccount(info.id);
        return info;
      },
    },
    teams: {
      ...teams,
      async block(ref, actor) {
        const team = await teams.block(ref, actor);
        await repo.revokeByTeam(team.id);
        return team;
      },
    },
  };
}
