"""URLs: public board and accounts, the player's pages, the game masters' console."""

from __future__ import annotations

import os

from django.contrib.auth import views as auth_views
from django.urls import path

from .games import (
    views_accounts,
    views_etwin,
    views_forum,
    views_gm,
    views_notify,
    views_player,
    views_post,
    views_preview,
    views_public,
    views_ronde,
    views_setup,
    views_sim,
)

urlpatterns = [
    path("", views_public.home, name="home"),
    path("sante/", views_public.health, name="health"),
    path("connexion/", views_accounts.LoginView.as_view(), name="login"),
    path("deconnexion/", auth_views.LogoutView.as_view(), name="logout"),
    path("invitation/<str:token>/", views_accounts.invitation, name="invitation"),
    # Sign in with Eternaltwin: the button's POST, the registered callback, the account
    path("oauth/eternaltwin/", views_etwin.start, name="etwin_start"),
    path("oauth/callback/", views_etwin.callback, name="etwin_callback"),
    path("compte/", views_etwin.account, name="account"),
    # the public board and the players
    path("partie/<slug:slug>/", views_public.public_board, name="public"),
    path("partie/<slug:slug>/moi/", views_player.player, name="player"),
    path("partie/<slug:slug>/choeur/", views_player.chorus, name="chorus"),
    path(
        "partie/<slug:slug>/demande/<str:action>/",
        views_player.send_request,
        name="player_request",
    ),
    path(
        "partie/<slug:slug>/demande/<int:pk>/retirer/",
        views_player.withdraw_request,
        name="player_withdraw",
    ),
    # notifications (e-mail, Web Push) and the installable web app
    path("partie/<slug:slug>/notifications/", views_notify.settings_page, name="notify_settings"),
    path("notifications/appareil/", views_notify.push_subscribe, name="notify_push"),
    path("notifications/appareil/retirer/", views_notify.push_unsubscribe, name="notify_unpush"),
    path("notifications/confirmer/<str:token>/", views_notify.confirm_email, name="notify_confirm"),
    path("sw.js", views_notify.service_worker, name="service_worker"),
    path("manifest.webmanifest", views_notify.manifest, name="manifest"),
    # the game masters
    path("mj/", views_setup.gm_home, name="gm_home"),
    path("mj/<slug:slug>/", views_gm.dashboard, name="gm_dashboard"),
    path("mj/<slug:slug>/preparation/", views_setup.setup, name="gm_setup"),
    path("mj/<slug:slug>/ronde/", views_ronde.ronde, name="gm_ronde"),
    path("mj/<slug:slug>/horloge/", views_ronde.clock, name="gm_clock"),
    path("mj/<slug:slug>/simulations/", views_sim.simulations, name="gm_simulations"),
    path("mj/<slug:slug>/actions/", views_gm.actions_index, name="gm_actions"),
    path("mj/<slug:slug>/action/<str:name>/", views_gm.action_form, name="gm_action"),
    path("mj/<slug:slug>/plaintes/", views_gm.complaints, name="gm_complaints"),
    path("mj/<slug:slug>/a-faire/", views_gm.todo_mark, name="gm_todo"),
    path("mj/<slug:slug>/contraintes/", views_gm.judge_constraints, name="gm_constraints"),
    path("mj/<slug:slug>/journal/", views_gm.journal, name="gm_journal"),
    path("mj/<slug:slug>/rayer/<int:pk>/", views_gm.strike, name="gm_strike"),
    path("mj/<slug:slug>/points/", views_gm.scores, name="gm_scores"),
    path("mj/<slug:slug>/apercu/", views_preview.preview, name="gm_preview"),
    path("mj/<slug:slug>/joueurs/", views_gm.players, name="gm_players"),
    path("mj/<slug:slug>/invitations/", views_gm.invitations, name="gm_invitations"),
    path("mj/<slug:slug>/joueurs/eternaltwin/", views_etwin.gm_links, name="gm_etwin"),
    path(
        "mj/<slug:slug>/demande/<int:pk>/<str:decision>/",
        views_gm.decide_request,
        name="gm_request",
    ),
    path("mj/<slug:slug>/forum/", views_forum.forum, name="gm_forum"),
    path("mj/<slug:slug>/a-poster/", views_post.to_post, name="gm_to_post"),
    path("mj/<slug:slug>/remise/", views_notify.gm_delivery, name="gm_delivery"),
    path("mj/<slug:slug>/modeles/", views_forum.templates, name="gm_post_templates"),
]

if os.environ.get("RONDE_BENCH_VIEWS") == "1":
    # the web benchmark's baseline (benchmarks/bench_web.py): never set in production
    urlpatterns.append(path("banc/constante/", views_public.bench_constant, name="bench_constant"))
